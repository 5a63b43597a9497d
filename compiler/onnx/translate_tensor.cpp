// Element-wise ops and ops that only move or name values: Relu, Add, Identity, Constant,
// Flatten and Reshape.

#include "compiler/onnx/translators.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

void translate_relu(NodeContext& n) {
  n.allow_attributes({});
  n.set_output(0, n.add(OpType::Relu, {n.input(0)}, {}));
}

// ONNX broadcasts; the IR's add takes two tensors of one shape, and its shape inference
// reports any other pair.
void translate_add(NodeContext& n) {
  n.allow_attributes({});
  n.set_output(0, n.add(OpType::Add, {n.input(0), n.input(1)}, {}));
}

void translate_identity(NodeContext& n) {
  n.allow_attributes({});
  // Identity of an initializer was resolved with the initializers (initializers.h); one of
  // a Constant output is that constant again.
  if (n.has_input(0) && n.has_output(0)) {
    if (const onnx::TensorProto* c = n.import().constant(n.node().input(0))) {
      if (!n.import().constant(n.node().output(0))) n.import().add_constant(n.node().output(0), c);
      return;
    }
  }
  n.set_output(0, n.input(0));
}

// The value becomes a constant of the import; only constant inputs (shapes) may read it.
void translate_constant(NodeContext& n) {
  n.allow_attributes({"value"});
  const onnx::TensorProto* value = n.attr_tensor("value");
  if (!value) n.fail_attr("value", "is required");
  if (n.has_output(0)) n.import().add_constant(n.node().output(0), value);
}

// Flatten to [d0*...*d(axis-1), rest]: the IR's reshape with one -1.
void translate_flatten(NodeContext& n) {
  n.allow_attributes({"axis"});
  const ir::Tensor& x = n.input_tensor(0);
  const auto rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank)
    n.fail_attr("axis", "= " + std::to_string(n.attr_int("axis", 1)) + " is out of range for " +
                            ir::shape_text(x.dtype, x.shape));
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= x.shape[static_cast<size_t>(d)];
  n.set_output(
      0, n.add(OpType::Reshape, {n.input(0)}, Attrs{{"shape", std::vector<int64_t>{outer, -1}}}));
}

void translate_reshape(NodeContext& n) {
  n.allow_attributes({"allowzero"});
  const ir::Tensor& x = n.input_tensor(0);
  std::vector<int64_t> shape = n.constant_ints(1);
  const bool allow_zero = n.attr_int("allowzero", 0) != 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 0) continue;
    if (allow_zero)
      n.fail_attr("allowzero", "= 1 with a 0 in the shape " + ir::ints_text(shape) +
                                   " is not supported (empty tensors)");
    // ONNX: a 0 copies the input's dimension at that position.
    if (i >= x.shape.size())
      n.fail("shape " + ir::ints_text(shape) + " copies dimension " + std::to_string(i) + " of " +
             ir::shape_text(x.dtype, x.shape) + ", which has none");
    shape[i] = x.shape[i];
  }
  n.set_output(0, n.add(OpType::Reshape, {n.input(0)}, Attrs{{"shape", shape}}));
}

}  // namespace

void add_tensor_ops(OnnxOpRegistry& r) {
  r.add("Relu", {translate_relu, {}, {}});
  r.add("Add", {translate_add, {}, {}});
  r.add("Identity", {translate_identity, {}, {}});
  r.add("Constant", {translate_constant, {}, {}});
  r.add("Flatten", {translate_flatten, {}, {}});
  r.add("Reshape", {translate_reshape, {1}, {}});
}

}  // namespace s2::onnx_import
