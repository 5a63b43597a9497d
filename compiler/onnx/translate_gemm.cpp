// Gemm and MatMul, onto the IR's gemm (y = op(a) . op(b) + bias). A PyTorch Linear
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

// MatMul of a [..., K] by b [K, N]: a Linear applied to the last dimension (ConvNeXt's
// pointwise layers on an [N,H,W,C] map; a transformer's projections). The leading dimensions of
// a become the gemm's rows (a reshape; a dense copy first when a is a strided view) and come
// back on the output. A b that is the transposed view of a dense [N, K] tensor (PyTorch exports
// a Linear's weight as Transpose(weight) then MatMul) is read as that tensor with trans_b = 1,
// so the gemm and its gradients see the weight's own layout. With a third input (the Linear
// pattern of patterns.h: MatMul then Add of a 1-D bias), the gemm adds the bias in its epilogue.
void translate_matmul(NodeContext& n) {
  n.allow_attributes({});
  // Copies: adding ops below may move the graph's tensors.
  const ir::Tensor a = n.input_tensor(0);
  const ir::Tensor b = n.input_tensor(1);
  if (b.shape.size() != 2 || a.shape.size() < 2 || a.shape.size() > 4)
    n.fail("inputs are " + ir::shape_text(a.dtype, a.shape) + " and " +
           ir::shape_text(b.dtype, b.shape) +
           "; only MatMul of a [..., K] (rank 2 to 4) by a 2-D [K, N] is supported");
  ir::Graph& g = n.import().graph();
  ir::TensorId rhs = n.input(1);
  int64_t trans_b = 0;
  if (b.shape[0] > 1 && b.shape[1] > 1 && b.strides[0] == 1 && b.strides[1] == b.shape[0]) {
    rhs = g.add(OpType::Transpose, g.unique_name(n.name() + "/weight"), ir::OpCategory::Forward,
                {rhs}, Attrs{{"perm", std::vector<int64_t>{1, 0}}});
    trans_b = 1;
  }
  const Attrs attrs{{"trans_b", trans_b}};
  std::vector<ir::TensorId> inputs{n.input(0), rhs};
  if (n.has_input(2)) inputs.push_back(n.input(2));
  if (a.shape.size() == 2) {
    n.set_output(0, n.add(OpType::Gemm, inputs, attrs));
    return;
  }
  const int64_t k = a.shape.back(), cols = b.shape[1];
  ir::Shape out = a.shape;
  out.back() = cols;
  inputs[0] = reshape_of(n, n.input(0), {ir::shape_numel(a.shape) / k, k}, "/rows");
  const ir::TensorId y = n.add(OpType::Gemm, inputs, attrs);
  n.set_output(0, reshape_of(n, y, out, "/out"));
}

}  // namespace

void add_gemm_pattern_ops(OnnxOpRegistry& r) {
  r.add("Linear", {translate_matmul, {}, {}});
}

void add_gemm_ops(OnnxOpRegistry& r) {
  r.add("Gemm", {translate_gemm, {}, {}});
  r.add("MatMul", {translate_matmul, {}, {}});
}

}  // namespace s2::onnx_import
