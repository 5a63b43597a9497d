// reduce_sum: sums an f32 tensor over a set of axes, on the PPU. Autodiff uses it for bias
// gradients (conv: axes [0,2,3]; gemm: axes [0]); ONNX ReduceMean other than global pooling is
// reduce_sum then scale.
//
// reduce_sumsq: the same reduction of the squares (each square rounded, then added): gradient
// clipping's per-gradient sum of squares (autodiff, --clip-grad-norm). No backward rule.

#include "isa/numerics/reduce.h"

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

std::vector<OutputSpec> infer_reduce_sum(const InferContext& ctx) {
  ctx.expect_float(0);
  const Tensor& x = ctx.input(0);
  const std::vector<int64_t>& axes = ctx.attrs().ints("axes");
  const int64_t keepdims = ctx.attrs().i("keepdims");
  if (keepdims != 0 && keepdims != 1)
    ctx.fail("attribute 'keepdims' must be 0 or 1, not " + std::to_string(keepdims));
  if (axes.empty()) ctx.fail("attribute 'axes' is empty; name the axes to sum over");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= rank)
      ctx.fail("axis " + std::to_string(axes[i]) + " of axes=" + ints_text(axes) +
               " is out of range for input 'x' " + shape_text(x.dtype, x.shape));
    if (i > 0 && axes[i] <= axes[i - 1])
      ctx.fail("attribute 'axes' " + ints_text(axes) + " must be sorted and without repeats");
  }
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const bool reduced = next < axes.size() && axes[next] == d;
    if (reduced) ++next;
    if (!reduced)
      y.shape.push_back(x.shape[static_cast<size_t>(d)]);
    else if (keepdims)
      y.shape.push_back(1);
  }
  // Summing every axis away leaves one element: shape [1] (the ISA has no rank-0 tensors).
  if (y.shape.empty()) y.shape = {1};
  return {y};
}

// The PPU's reduce (isa/numerics/reduce.h: row-major order, a pairwise tree), as
// the functional model's `reduce` computes it.
template <isa::ReduceOp kOp>
void reduce_kernel(KernelContext& k) {
  std::vector<uint64_t> shape;
  for (int64_t d : k.in[0].shape)
    shape.push_back(static_cast<uint64_t>(d));
  uint32_t axes = 0;
  for (int64_t a : k.op.attrs.ints("axes"))
    axes |= 1u << a;
  numerics::reduce(kOp, k.in[0].f32, shape, axes, k.out[0].f32);
}

// dx = dy broadcast back over the summed axes: dy viewed with keepdims' shape, then an expand
// view (stride 0 along those axes). No data moves; the consumer reads through the strides.
void reduce_sum_backward(BackwardContext& b) {
  TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  const OpCategory category = b.grad_category(0);
  const Shape x_shape = b.tensor(b.input(0)).shape;
  Shape kept = x_shape;
  for (int64_t axis : b.attrs().ints("axes"))
    kept[static_cast<size_t>(axis)] = 1;
  if (b.tensor(dy).shape != kept)
    dy = b.emit1(OpType::Reshape, "grad_kept", category, {dy}, Attrs{{"shape", kept}});
  b.add_grad(0, b.emit1(OpType::Expand, "grad", category, {dy}, Attrs{{"shape", x_shape}}));
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

// Axis i of x is bit i of the mask (bit 0 = outermost); x has rank 1..4, so it fits.
template <isa::ReduceOp kOp>
void encode_reduce(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  inst.set_raw(Field::Reduce, static_cast<uint32_t>(kOp));
  int64_t mask = 0;
  for (int64_t axis : op.attrs.ints("axes")) {
    if (axis < 0 || axis >= 4) w.fail("axis " + std::to_string(axis) + " is past rank 4");
    mask |= int64_t{1} << axis;
  }
  w.uint(Field::Axes, "axes", mask);
}

void decode_reduce_sum(const Instruction& inst, ir::Attrs& a) {
  std::vector<int64_t> axes;
  for (int64_t axis = 0; axis < 4; ++axis)
    if ((inst.u(Field::Axes) >> axis) & 1u) axes.push_back(axis);
  a.set("axes", axes);
  a.set("keepdims", int64_t{0});  // the output's element count is the same either way
}

template <isa::ReduceOp kOp>
bool is_reduce(const Instruction& inst) {
  return inst.as<isa::ReduceOp>(Field::Reduce) == kOp;
}

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  const SlotBinding x{"x", Slot::X}, y{"y", Slot::Y};
  add_op(r,
         OpSchema{OpType::ReduceSum,
                  FusionClass::Ppu,
                  {{"x"}},
                  {"y"},
                  {{"axes", AttrKind::Ints, std::nullopt},
                   {"keepdims", AttrKind::Int, AttrValue(int64_t{0})}},
                  infer_reduce_sum,
                  reduce_sum_backward,
                  reduce_kernel<isa::ReduceOp::Sum>,
                  "Sum of x over `axes` (sorted, without repeats, each in [0, rank)). With "
                  "keepdims=1 the summed axes stay as size 1; summing every axis away gives "
                  "shape [1]. Each output adds its inputs, in row-major order, by a pairwise tree "
                  "(isa/numerics/reduce.h). dx is dy broadcast back over the summed axes (an "
                  "expand view)."},
         {OpType::ReduceSum,
          Opcode::Reduce,
          {x},
          {y},
          false,
          encode_reduce<isa::ReduceOp::Sum>,
          decode_reduce_sum,
          is_reduce<isa::ReduceOp::Sum>});
  add_op(r,
         OpSchema{OpType::ReduceSumSq,
                  FusionClass::Ppu,
                  {{"x"}},
                  {"y"},
                  {{"axes", AttrKind::Ints, std::nullopt},
                   {"keepdims", AttrKind::Int, AttrValue(int64_t{0})}},
                  infer_reduce_sum,
                  nullptr,
                  reduce_kernel<isa::ReduceOp::SumSq>,
                  "Sum of the squares of x over `axes`, shaped as reduce_sum's output; each "
                  "square is rounded, then added as reduce_sum adds. Gradient clipping's "
                  "per-gradient sum of squares. No backward rule."},
         {OpType::ReduceSumSq,
          Opcode::Reduce,
          {x},
          {y},
          false,
          encode_reduce<isa::ReduceOp::SumSq>,
          decode_reduce_sum,
          is_reduce<isa::ReduceOp::SumSq>});
}

}  // namespace s2::ir
