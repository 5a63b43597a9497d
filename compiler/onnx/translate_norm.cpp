// LayerNormalization (opset 17), onto the IR's layer_norm, which normalises over the last
// dimension. PyTorch's LayerNorm exports with axis = -1; ConvNeXt's LayerNorm2d normalises the
// channels of a map as Transpose(0,2,3,1), LayerNormalization, Transpose(0,3,1,2), and the
// layer_norm reads the transposed view through its strides. An axis before the last (several
// normalised dimensions) flattens them into one: x, Scale and B are reshaped (x through a dense
// copy when it is a strided view) and y reshaped back.

#include <string>

#include "compiler/onnx/translators.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

void translate_layer_norm(NodeContext& n) {
  n.allow_attributes({"axis", "epsilon", "stash_type"});
  // Copies: adding ops below may move the graph's tensors.
  const ir::Tensor x = n.input_tensor(0);
  const auto rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 1 || axis >= rank)
    n.fail_attr("axis", "= " + std::to_string(n.attr_int("axis", -1)) + " on " +
                            ir::shape_text(x.dtype, x.shape) +
                            " is not supported: it must leave at least one leading dimension "
                            "of rows and normalise at least one");
  if (n.attr_int("stash_type", 1) != 1)
    n.fail_attr("stash_type", "= " + std::to_string(n.attr_int("stash_type", 1)) +
                                  " is not supported (only 1: float statistics)");
  if (!n.has_input(2))
    n.fail(
        "input B (the shift) is absent; only LayerNormalization with both Scale and B is "
        "supported");
  const ir::Shape normalized(x.shape.begin() + axis, x.shape.end());
  for (size_t i : {size_t{1}, size_t{2}}) {
    const ir::Tensor& t = n.input_tensor(i);
    if (t.shape != normalized)
      n.fail("input " + std::string(i == 1 ? "Scale" : "B") + " '" +
             n.node().input(static_cast<int>(i)) + "' is " + ir::shape_text(t.dtype, t.shape) +
             "; it must have the normalised shape " + ir::shape_text(x.dtype, normalized) +
             " (broadcasting it is not supported)");
  }
  const Attrs attrs{{"eps", decimal_value(n.attr_float("epsilon", 1e-5f))}};
  ir::TensorId y;
  ir::Shape rows(x.shape.begin(), x.shape.begin() + axis);
  if (axis == rank - 1) {
    y = n.add_op(OpType::LayerNorm, {n.input(0), n.input(1), n.input(2)}, attrs)[0];
  } else {
    const int64_t d = ir::shape_numel(normalized);
    ir::Shape flat = rows;
    flat.push_back(d);
    const ir::TensorId xf = reshape_of(n, n.input(0), flat, "/x");
    const ir::TensorId scale = reshape_of(n, n.input(1), {d}, "/scale");
    const ir::TensorId shift = reshape_of(n, n.input(2), {d}, "/bias");
    const ir::TensorId yf = n.add_op(OpType::LayerNorm, {xf, scale, shift}, attrs)[0];
    y = reshape_of(n, yf, x.shape, "/y");
  }
  n.set_output(0, y);
  n.expect_unused_output(1, "the IR's layer_norm keeps its row statistics for the backward");
  n.expect_unused_output(2, "the IR's layer_norm keeps its row statistics for the backward");
}

}  // namespace

void add_norm_ops(OnnxOpRegistry& r) {
  r.add("LayerNormalization", {translate_layer_norm, {}, {}});
}

}  // namespace s2::onnx_import
