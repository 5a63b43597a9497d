// softmax over the last dimension (attention's scores) and its backward, on the PPU.
//
// x has rank 1 to 4; each row of its last dimension C is normalised on its own. Attention
// computes softmax(Q.K^T / sqrt(d) + mask): the scale and the additive mask are part of the op
// (and of the instruction), so the scores are read once. The mask has x's shape; a mask shared
// by heads or query rows (BERT's [N,1,1,L] padding mask) is an `expand` view of it, read
// through zero strides. `causal` leaves out column j of row i when j > i (i the second-to-last
// index), the decoder's mask, without any tensor.
//
// The arithmetic (row sums in double, each result rounded once to fp32; the order of every max
// and sum) is isa/numerics/softmax.h, shared with the simulator's functional model.

#include "isa/numerics/softmax.h"

#include <cmath>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

// Checks input `i` (a float type, rank 1 to 4).
void check_rows(const InferContext& ctx, size_t i) {
  ctx.expect_float(i);
  const Shape& x = ctx.shape(i);
  if (x.empty() || x.size() > 4)
    ctx.fail(ctx.describe(i) +
             " must have rank 1 to 4 (rows of its last dimension; the ISA's descriptors hold "
             "up to 4 dimensions)");
}

double check_scale(const InferContext& ctx) {
  const double scale = ctx.attrs().f("scale");
  if (!std::isfinite(scale)) ctx.fail("scale=" + std::to_string(scale) + " must be finite");
  return scale;
}

numerics::SoftmaxGeometry geometry(const Shape& x) {
  numerics::SoftmaxGeometry g;
  g.cols = static_cast<size_t>(x.back());
  g.rows = static_cast<size_t>(shape_numel(x)) / g.cols;
  g.rows_per_matrix = x.size() >= 2 ? static_cast<size_t>(x[x.size() - 2]) : 1;
  return g;
}

// The scale travels to the hardware as an f32 field: round it the same way here.
float scale_of(const Op& op) {
  return static_cast<float>(op.attrs.f("scale"));
}

// ---- softmax ----

std::vector<OutputSpec> infer_softmax(const InferContext& ctx) {
  check_rows(ctx, 0);
  const int64_t causal = ctx.attrs().i("causal");
  if (causal != 0 && causal != 1)
    ctx.fail("attribute 'causal' must be 0 or 1, not " + std::to_string(causal));
  if (causal == 1 && ctx.shape(0).size() < 2)
    ctx.fail(ctx.describe(0) + ": a causal softmax needs rows and columns (rank 2 to 4)");
  check_scale(ctx);
  if (ctx.has_input(1)) {
    ctx.expect_float(1);
    ctx.expect_shape(1, ctx.shape(0));
  }
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape = ctx.shape(0);
  return {y};
}

void softmax_kernel(KernelContext& k) {
  numerics::softmax_forward(geometry(k.in[0].shape), k.in[0].f32,
                            k.in[1].present() ? k.in[1].f32 : nullptr, scale_of(k.op),
                            k.op.attrs.i("causal") != 0, k.out[0].f32);
}

// dx = scale * y * (dy - sum(dy * y)); the mask's gradient is the same without the scale.
// Each is one softmax_bwd reading the forward output.
void softmax_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid()) return;
  const TensorId y = b.output(0);
  const double scale = b.attrs().f("scale");
  if (b.needs_grad(0))
    b.add_grad(0, b.emit1(OpType::SoftmaxBwd, "bwd", b.grad_category(0), {dy, y},
                          Attrs{{"scale", scale}}));
  if (b.input(1).valid() && b.needs_grad(1))
    b.add_grad(1, b.emit1(OpType::SoftmaxBwd, "bwd_mask", b.grad_category(1), {dy, y},
                          Attrs{{"scale", 1.0}}));
}

// ---- softmax_bwd ----

std::vector<OutputSpec> infer_softmax_bwd(const InferContext& ctx) {
  check_rows(ctx, 1);
  ctx.expect_float(0);
  ctx.expect_shape(0, ctx.shape(1));
  check_scale(ctx);
  OutputSpec dx;
  dx.dtype = ctx.result_dtype();
  dx.shape = ctx.shape(1);
  return {dx};
}

void softmax_bwd_kernel(KernelContext& k) {
  numerics::softmax_backward(geometry(k.in[1].shape), k.in[0].f32, k.in[1].f32, scale_of(k.op),
                             k.out[0].f32);
}

}  // namespace

void register_softmax_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::Softmax,
                  FusionClass::Ppu,
                  {{"x"}, {"mask", true}},
                  {"y"},
                  {{"scale", AttrKind::Float, AttrValue(1.0)},
                   {"causal", AttrKind::Int, AttrValue(int64_t{0})}},
                  infer_softmax,
                  softmax_backward,
                  softmax_kernel,
                  "Softmax of x (rank 1 to 4) over its last dimension, row by row, of z = scale * "
                  "x + mask (mask optional, x's shape; an expand view broadcasts it). With "
                  "causal=1, column j of row i (i the second-to-last index) is left out when j > "
                  "i and its y is 0. Row sums in double, rounded once: isa/numerics/softmax.h."},
         {OpType::Softmax,
          Opcode::Softmax,
          {{"x", Slot::X}, {"mask", Slot::Mask}},
          {{"y", Slot::Y}},
          false,
          [](const ir::Op& op, Instruction& inst) {
            FieldWriter w(op, inst);
            w.f32(Field::Scale, "scale");
            w.flag(Field::Causal, "causal");
          },
          [](const Instruction& inst, ir::Attrs& a) {
            a.set("scale", field_f64(inst, Field::Scale));
            a.set("causal", int64_t{inst.u(Field::Causal)});
          },
          always});
  add_op(
      r,
      OpSchema{OpType::SoftmaxBwd,
               FusionClass::Ppu,
               {{"dy"}, {"y"}},
               {"dx"},
               {{"scale", AttrKind::Float, AttrValue(1.0)}},
               infer_softmax_bwd,
               nullptr,
               softmax_bwd_kernel,
               "Backward of softmax from its output y: dx = scale * y * (dy - sum(dy * y)), the "
               "sum over each row (0 where the forward excluded a column, since y is 0 there). "
               "No backward rule."},
      {OpType::SoftmaxBwd,
       Opcode::SoftmaxBwd,
       {{"dy", Slot::Dy}, {"y", Slot::Y}},
       {{"dx", Slot::Dx}},
       false,
       [](const ir::Op& op, Instruction& inst) {
         FieldWriter(op, inst).f32(Field::Scale, "scale");
       },
       [](const Instruction& inst, ir::Attrs& a) { a.set("scale", field_f64(inst, Field::Scale)); },
       always});
}

}  // namespace s2::ir
