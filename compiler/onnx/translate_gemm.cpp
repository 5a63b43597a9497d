// Gemm and MatMul, onto the IR's gemm (y = op(a) . op(b) + bias), and batched MatMul onto its
// bmm. A PyTorch Linear exports as Gemm(x, weight, bias, transB=1).

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

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

// An operand of a batched MatMul as the bmm reads it: a view whose last two dimensions are
// swapped relative to its storage (PyTorch's k.transpose(-2, -1)) is read as the stored layout
// with the transpose flag, so the PE array streams whole rows; a batch dimension of size 1
// facing a larger one is broadcast by an expand view (stride 0).
ir::TensorId bmm_operand(NodeContext& n, ir::TensorId t, const ir::Shape& batch, int64_t* trans,
                         const std::string& suffix) {
  ir::Graph& g = n.import().graph();
  const ir::Tensor x = g.tensor(t);
  const size_t r = x.shape.size();
  std::vector<int64_t> swap(r);
  for (size_t i = 0; i < r; ++i)
    swap[i] = static_cast<int64_t>(i);
  std::swap(swap[r - 1], swap[r - 2]);
  if (x.shape[r - 1] > 1 && x.shape[r - 2] > 1 && x.strides[r - 2] == 1 && x.strides[r - 1] != 1) {
    t = g.add(OpType::Transpose, g.unique_name(n.name() + suffix + "/stored"),
              ir::OpCategory::Forward, {t}, Attrs{{"perm", swap}});
    *trans = 1;
  }
  const ir::Tensor& y = g.tensor(t);
  ir::Shape full = batch;
  full.push_back(y.shape[r - 2]);
  full.push_back(y.shape[r - 1]);
  if (full != y.shape)
    t = g.add(OpType::Expand, g.unique_name(n.name() + suffix + "/broadcast"),
              ir::OpCategory::Forward, {t}, Attrs{{"shape", full}});
  return t;
}

// MatMul of two tensors of rank 3 or 4: the IR's bmm, one gemm per batch index (attention's
// Q.K^T and P.V). Batch dimensions broadcast as NumPy's do (a 1 against a larger size); both
// operands must have the same rank.
void translate_batched_matmul(NodeContext& n) {
  const ir::Tensor a = n.input_tensor(0);
  const ir::Tensor b = n.input_tensor(1);
  const size_t r = a.shape.size();
  if (r != b.shape.size() || r < 3 || r > 4)
    n.fail("inputs are " + ir::shape_text(a.dtype, a.shape) + " and " +
           ir::shape_text(b.dtype, b.shape) +
           "; a batched MatMul needs two tensors of the same rank, 3 or 4");
  ir::Shape batch(r - 2);
  for (size_t d = 0; d + 2 < r; ++d) {
    const int64_t x = a.shape[d], y = b.shape[d];
    if (x != y && x != 1 && y != 1)
      n.fail("batch dimension " + std::to_string(d) + " of " + ir::shape_text(a.dtype, a.shape) +
             " and " + ir::shape_text(b.dtype, b.shape) + " do not broadcast");
    batch[d] = std::max(x, y);
  }
  int64_t ta = 0, tb = 0;
  const ir::TensorId lhs = bmm_operand(n, n.input(0), batch, &ta, "/a");
  const ir::TensorId rhs = bmm_operand(n, n.input(1), batch, &tb, "/b");
  n.set_output(0, n.add(OpType::Bmm, {lhs, rhs}, Attrs{{"trans_a", ta}, {"trans_b", tb}}));
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
  if (b.shape.size() >= 3 && !n.has_input(2)) {
    translate_batched_matmul(n);
    return;
  }
  if (b.shape.size() != 2 || a.shape.size() < 2 || a.shape.size() > 4)
    n.fail("inputs are " + ir::shape_text(a.dtype, a.shape) + " and " +
           ir::shape_text(b.dtype, b.shape) +
           "; only MatMul of a [..., K] (rank 2 to 4) by a 2-D [K, N], or of two tensors of "
           "rank 3 or 4 (batched) is supported");
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
