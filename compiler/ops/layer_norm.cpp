// Layer norm (PyTorch's LayerNorm over the last dimension) and its backward, on the PPU.
//
// x has rank 2 to 4 and is normalised row by row over its last dimension D (every leading
// dimension indexes rows), with the biased variance, then scaled by gamma [D] and shifted by
// beta [D]. The forward saves each row's mean and 1/sqrt(var + eps), shaped like x without
// its last dimension, for the backward. x may be any view: ConvNeXt normalises the channels
// of an [N,C,H,W] map through a transposed [N,H,W,C] view, which the instruction reads through
// its descriptor's strides (no copy).
//
// The arithmetic (reductions and normalisation in double, rounded once to fp32; the order of
// every sum) is isa/numerics/layer_norm.h, shared with the simulator's functional model.

#include "isa/numerics/layer_norm.h"

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

// Checks x (input `xi`: a float type, rank 2 to 4) and returns its last dimension D.
int64_t check_rows(const InferContext& ctx, size_t xi) {
  ctx.expect_float(xi);
  const Shape& x = ctx.shape(xi);
  if (x.size() < 2 || x.size() > 4)
    ctx.fail(ctx.describe(xi) +
             " must have rank 2 to 4 (rows of its last dimension; the ISA's descriptors hold "
             "up to 4 dimensions)");
  return x.back();
}

void check_per_column(const InferContext& ctx, size_t i, int64_t d) {
  ctx.expect_dtype(i, DType::F32);
  ctx.expect_shape(i, {d});
}

Shape row_shape(const Shape& x) {
  return Shape(x.begin(), x.end() - 1);
}

numerics::LnGeometry geometry(const Shape& x) {
  numerics::LnGeometry g;
  g.d = static_cast<size_t>(x.back());
  g.rows = static_cast<size_t>(shape_numel(row_shape(x)));
  return g;
}

// ---- layer_norm ----

std::vector<OutputSpec> infer_layer_norm(const InferContext& ctx) {
  const int64_t d = check_rows(ctx, 0);
  check_per_column(ctx, 1, d);
  check_per_column(ctx, 2, d);
  const double eps = ctx.attrs().f("eps");
  if (!(eps >= 0.0)) ctx.fail("eps=" + std::to_string(eps) + " must be >= 0");
  OutputSpec y, stat;  // the statistics stay f32
  y.dtype = ctx.result_dtype();
  y.shape = ctx.shape(0);
  stat.shape = row_shape(ctx.shape(0));
  return {y, stat, stat};
}

void layer_norm_kernel(KernelContext& k) {
  // eps travels to the hardware as an f32 field: round it the same way here.
  numerics::layer_norm_forward(geometry(k.in[0].shape), k.in[0].f32, k.in[1].f32, k.in[2].f32,
                               static_cast<float>(k.op.attrs.f("eps")), k.out[0].f32, k.out[1].f32,
                               k.out[2].f32);
}

// One layer_norm_bwd computes all three gradients; those not needed are left to dead-code
// elimination. The saved statistics are not differentiable results of the step.
void layer_norm_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !(b.needs_grad(0) || b.needs_grad(1) || b.needs_grad(2))) return;
  const std::vector<TensorId> grads =
      b.emit(OpType::LayerNormBwd, "bwd", OpCategory::ActivationGrad,
             {dy, b.input(0), b.input(1), b.output(1), b.output(2)});
  for (size_t i = 0; i < 3; ++i)
    if (b.needs_grad(i)) b.add_grad(i, grads[i]);
}

// ---- layer_norm_bwd ----

std::vector<OutputSpec> infer_layer_norm_bwd(const InferContext& ctx) {
  const int64_t d = check_rows(ctx, 1);
  ctx.expect_float(0);
  ctx.expect_shape(0, ctx.shape(1));
  check_per_column(ctx, 2, d);
  for (size_t i = 3; i <= 4; ++i) {
    ctx.expect_dtype(i, DType::F32);
    ctx.expect_shape(i, row_shape(ctx.shape(1)));
  }
  OutputSpec dx, col;  // dgamma and dbeta stay f32
  dx.dtype = ctx.result_dtype();
  dx.shape = ctx.shape(1);
  col.shape = {d};
  return {dx, col, col};
}

void layer_norm_bwd_kernel(KernelContext& k) {
  numerics::layer_norm_backward(geometry(k.in[1].shape), k.in[0].f32, k.in[1].f32, k.in[2].f32,
                                k.in[3].f32, k.in[4].f32, k.out[0].f32, k.out[1].f32, k.out[2].f32);
}

}  // namespace

void register_layer_norm_ops(OpRegistry& r) {
  const SlotBinding x{"x", Slot::X}, gamma{"gamma", Slot::Gamma}, mean{"saved_mean", Slot::Mean},
      invstd{"saved_invstd", Slot::InvStd};
  add_op(r,
         OpSchema{OpType::LayerNorm,
                  FusionClass::Ppu,
                  {{"x"}, {"gamma"}, {"beta"}},
                  {"y", "saved_mean", "saved_invstd"},
                  {{"eps", AttrKind::Float, AttrValue(1e-5)}},
                  infer_layer_norm,
                  layer_norm_backward,
                  layer_norm_kernel,
                  "Layer norm of x (rank 2 to 4) over its last dimension D, row by row: y = (x - "
                  "mean) / sqrt(var + eps) * gamma + beta with gamma, beta [D] and the biased "
                  "variance, like PyTorch's LayerNorm. Outputs each row's mean and 1/sqrt(var + "
                  "eps), shaped like x without its last dimension, for the backward."},
         {OpType::LayerNorm,
          Opcode::LnFwd,
          {x, gamma, {"beta", Slot::Beta}},
          {{"y", Slot::Y}, mean, invstd},
          false,
          [](const ir::Op& op, Instruction& inst) { FieldWriter(op, inst).f32(Field::Eps, "eps"); },
          [](const Instruction& inst, ir::Attrs& a) { a.set("eps", field_f64(inst, Field::Eps)); },
          always});
  add_op(r,
         OpSchema{OpType::LayerNormBwd,
                  FusionClass::Ppu,
                  {{"dy"}, {"x"}, {"gamma"}, {"saved_mean"}, {"saved_invstd"}},
                  {"dx", "dgamma", "dbeta"},
                  {},
                  infer_layer_norm_bwd,
                  nullptr,
                  layer_norm_bwd_kernel,
                  "Backward of layer_norm from its saved row statistics: dx, and dgamma = sum(dy * "
                  "xhat), dbeta = sum(dy) over the rows. No backward rule."},
         {OpType::LayerNormBwd,
          Opcode::LnBwd,
          {{"dy", Slot::Dy}, x, gamma, mean, invstd},
          {{"dx", Slot::Dx}, {"dgamma", Slot::DGamma}, {"dbeta", Slot::DBeta}},
          false,
          [](const ir::Op&, Instruction&) {},
          decode_nothing,
          always});
}

}  // namespace s2::ir
