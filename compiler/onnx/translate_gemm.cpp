// Gemm and 2-D MatMul, onto the IR's gemm (y = op(a) . op(b) + bias). A PyTorch Linear
// exports as Gemm(x, weight, bias, transB=1).

#include "compiler/onnx/translators.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

int64_t flag(const NodeContext& n, const std::string& name) {
  const int64_t v = n.attr_int(name, 0);
  if (v != 0 && v != 1) n.fail_attr(name, "= " + std::to_string(v) + " must be 0 or 1");
  return v;
}

// The IR's gemm has no scaling factors.
void expect_unit(const NodeContext& n, const std::string& name) {
  const float v = n.attr_float(name, 1.0f);
  if (v != 1.0f)
    n.fail_attr(name, "= " + ir::attr_value_text(ir::AttrValue(decimal_value(v))) +
                          " is not supported (only 1)");
}

void translate_gemm(NodeContext& n) {
  n.allow_attributes({"alpha", "beta", "transA", "transB"});
  expect_unit(n, "alpha");
  std::vector<ir::TensorId> inputs{n.input(0), n.input(1)};
  if (n.has_input(2)) {
    expect_unit(n, "beta");
    // ONNX broadcasts C; the IR's bias is one value per output column, [N].
    const ir::Tensor& c = n.input_tensor(2);
    if (c.shape.size() != 1)
      n.fail("input C '" + n.node().input(2) + "' is " + ir::shape_text(c.dtype, c.shape) +
             "; only a bias of shape [N] is supported");
    inputs.push_back(n.input(2));
  }
  const Attrs attrs{{"trans_a", flag(n, "transA")}, {"trans_b", flag(n, "transB")}};
  n.set_output(0, n.add(OpType::Gemm, inputs, attrs));
}

void translate_matmul(NodeContext& n) {
  n.allow_attributes({});
  for (size_t i = 0; i < 2; ++i) {
    const ir::Tensor& t = n.input_tensor(i);
    if (t.shape.size() != 2)
      n.fail("input '" + n.node().input(static_cast<int>(i)) + "' is " +
             ir::shape_text(t.dtype, t.shape) + "; only 2-D MatMul is supported");
  }
  n.set_output(0, n.add(OpType::Gemm, {n.input(0), n.input(1)}, {}));
}

}  // namespace

void add_gemm_ops(OnnxOpRegistry& r) {
  r.add("Gemm", {translate_gemm, {}, {}});
  r.add("MatMul", {translate_matmul, {}, {}});
}

}  // namespace s2::onnx_import
