// The weight updates, in place on the PPU: sgd and adamw, and gradient clipping's clip_scale.
//
// Both updates take an optional grad_scale [1]: with --clip-grad-norm, clip_scale's output.
// The gradient is multiplied by it first (one rounding), as PyTorch's clip_grad_norm_ does in
// place before the optimizer step.
//
// Mixed precision (s2c compile --precision bf16|fp16): the weight stays f32 (the master
// weight); the gradient may be of any float type. The optional weight_copy input is the
// weight's 16-bit copy that the PE ops read: the update writes the new weight rounded to the
// copy's type there (weight_copy_out aliases it), as the ISA's weight_copy operand does.
// With dynamic loss scaling (fp16) the optional found_inf [1] (ops/amp.cpp) skips the whole
// update when nonzero, as GradScaler.step skips optimizer.step: no weight, state, copy or
// AdamW step count changes; grad_scale is then the inverse loss scale.
//
// sgd: PyTorch's torch.optim.SGD (dampening 0, no Nesterov). Per element, in f32 with every
// operation rounded (no fused multiply-add):
//   g = grad + weight_decay * weight        (when weight_decay != 0)
//   v = momentum * v + g;  g = v            (when momentum != 0)
//   weight = weight - lr * g
// The velocity starts at zero, so the first step stores v = g, PyTorch's first-step buffer.
//
// adamw: PyTorch's torch.optim.AdamW (amsgrad off). Each weight has its moments m and v (zero at
// the start) and a step count [1] i32 (zero at the start), incremented in place before the
// update uses it, so the bias correction follows the step across `s2sim run --steps`. The
// arithmetic is isa/numerics/adamw.h.
//
// clip_scale: from every clipped gradient's sum of squares (reduce_sumsq outputs concatenated
// into [K]), the global norm and the factor min(1, max_norm / (norm + 1e-6)); the arithmetic is
// isa/numerics/clip.h.

#include <cmath>
#include <string>
#include <vector>

#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/adamw.h"
#include "isa/numerics/clip.h"
#include "isa/numerics/lane_ops.h"

namespace s2::ir {
namespace {

// The optional grad_scale input: an f32 [1].
void check_grad_scale(const InferContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return;
  ctx.expect_dtype(i, DType::F32);
  ctx.expect_shape(i, {1});
}

// The optional weight_copy input i: a float tensor of the weight's shape, written in place.
OutputSpec weight_copy(const InferContext& ctx, size_t i) {
  if (!ctx.has_input(i)) {
    OutputSpec absent;
    absent.absent = true;
    return absent;
  }
  ctx.expect_float(i);
  ctx.expect_shape(i, ctx.shape(0));
  return ctx.in_place(i);
}

// The optional found_inf input i: an f32 [1]; true when it is given and nonzero.
void check_found_inf(const InferContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return;
  ctx.expect_dtype(i, DType::F32);
  ctx.expect_shape(i, {1});
}

bool overflowed(const KernelInput& found_inf) {
  return found_inf.present() && found_inf.f32[0] != 0.0f;
}

// The new weight rounded into its copy (run_kernel rounds the copy to its type).
void write_weight_copy(const float* weight, float* copy, size_t n) {
  if (copy == nullptr) return;
  for (size_t i = 0; i < n; ++i)
    copy[i] = weight[i];
}

// The gradient's element i as the update uses it: times grad_scale when given.
struct ScaledGrad {
  const float* grad;
  const float* scale;  // null: unscaled
  float operator[](size_t i) const {
    return scale != nullptr ? numerics::mul(grad[i], *scale) : grad[i];
  }
};

std::vector<OutputSpec> infer_sgd(const InferContext& ctx) {
  const double lr = ctx.attrs().f("lr");
  const double momentum = ctx.attrs().f("momentum");
  const double weight_decay = ctx.attrs().f("weight_decay");
  // Doubles print exactly through attr_value_text.
  if (!(lr >= 0.0)) ctx.fail("lr " + attr_value_text(AttrValue(lr)) + " must be >= 0");
  if (!(momentum >= 0.0))
    ctx.fail("momentum " + attr_value_text(AttrValue(momentum)) + " must be >= 0");
  if (!(weight_decay >= 0.0))
    ctx.fail("weight_decay " + attr_value_text(AttrValue(weight_decay)) + " must be >= 0");
  ctx.expect_dtype(0, DType::F32);
  ctx.expect_float(1);
  ctx.expect_shape(1, ctx.shape(0));
  check_grad_scale(ctx, 3);
  std::vector<OutputSpec> out{ctx.in_place(0)};
  if (ctx.has_input(2)) {
    ctx.expect_dtype(2, DType::F32);
    ctx.expect_shape(2, ctx.shape(0));
    out.push_back(ctx.in_place(2));
  } else {
    if (momentum != 0.0)
      ctx.fail("momentum " + attr_value_text(AttrValue(momentum)) +
               " needs the velocity input (optimizer state of the weight's shape)");
    OutputSpec absent;
    absent.absent = true;
    out.push_back(absent);
  }
  out.push_back(weight_copy(ctx, 4));
  check_found_inf(ctx, 5);
  return out;
}

void sgd_kernel(KernelContext& k) {
  if (overflowed(k.in[5])) return;
  numerics::SgdParams p;
  p.lr = numerics::load(static_cast<float>(k.op.attrs.f("lr")));
  p.momentum = numerics::load(static_cast<float>(k.op.attrs.f("momentum")));
  p.weight_decay = numerics::load(static_cast<float>(k.op.attrs.f("weight_decay")));
  const size_t n = static_cast<size_t>(k.in[0].numel());
  const ScaledGrad grad{k.in[1].f32, k.in[3].f32};
  float* weight = k.out[0].f32;    // the memory of input 0
  float* velocity = k.out[1].f32;  // the memory of input 2, or null
  float unused = 0.0f;
  for (size_t i = 0; i < n; ++i)
    numerics::sgd_step(p, weight[i], grad[i], velocity != nullptr ? &velocity[i] : &unused);
  write_weight_copy(weight, k.out[2].f32, n);
}

void check_non_negative(const InferContext& ctx, const char* attr) {
  const double v = ctx.attrs().f(attr);
  if (!(v >= 0.0))
    ctx.fail(std::string(attr) + " " + attr_value_text(AttrValue(v)) + " must be >= 0");
}

std::vector<OutputSpec> infer_adamw(const InferContext& ctx) {
  for (const char* attr : {"lr", "eps", "weight_decay"})
    check_non_negative(ctx, attr);
  for (const char* attr : {"beta1", "beta2"}) {
    const double b = ctx.attrs().f(attr);
    if (!(b >= 0.0 && b < 1.0))
      ctx.fail(std::string(attr) + " " + attr_value_text(AttrValue(b)) + " must be in [0, 1)");
  }
  ctx.expect_dtype(0, DType::F32);
  ctx.expect_float(1);
  for (size_t i = 1; i <= 3; ++i) {
    if (i > 1) ctx.expect_dtype(i, DType::F32);
    ctx.expect_shape(i, ctx.shape(0));
  }
  ctx.expect_dtype(4, DType::I32);
  ctx.expect_shape(4, {1});
  check_grad_scale(ctx, 5);
  check_found_inf(ctx, 7);
  return {ctx.in_place(0), ctx.in_place(2), ctx.in_place(3), ctx.in_place(4), weight_copy(ctx, 6)};
}

numerics::AdamWParams adamw_params(const Attrs& a) {
  numerics::AdamWParams p;
  p.lr = numerics::load(static_cast<float>(a.f("lr")));
  p.one_minus_beta1 = numerics::load(static_cast<float>(1.0 - a.f("beta1")));
  p.one_minus_beta2 = numerics::load(static_cast<float>(1.0 - a.f("beta2")));
  p.eps = numerics::load(static_cast<float>(a.f("eps")));
  p.weight_decay = numerics::load(static_cast<float>(a.f("weight_decay")));
  return p;
}

void adamw_kernel(KernelContext& k) {
  if (overflowed(k.in[7])) return;
  const numerics::AdamWParams p = adamw_params(k.op.attrs);
  int32_t& step = k.out[3].i32[0];  // the memory of input 4
  step += 1;
  const numerics::AdamWScalars s = numerics::adamw_scalars(p, step);
  const size_t n = static_cast<size_t>(k.in[0].numel());
  const ScaledGrad grad{k.in[1].f32, k.in[5].f32};
  float* weight = k.out[0].f32;
  float* m = k.out[1].f32;
  float* v = k.out[2].f32;
  for (size_t i = 0; i < n; ++i)
    numerics::adamw_step(p, s, weight[i], grad[i], m[i], v[i]);
  write_weight_copy(weight, k.out[4].f32, n);
}

std::vector<OutputSpec> infer_clip_scale(const InferContext& ctx) {
  const double max_norm = ctx.attrs().f("max_norm");
  if (!(max_norm > 0.0 && std::isfinite(static_cast<float>(max_norm))))
    ctx.fail("max_norm " + attr_value_text(AttrValue(max_norm)) + " must be finite and > 0");
  ctx.expect_dtype(0, DType::F32);
  if (ctx.shape(0).size() != 1)
    ctx.fail(ctx.describe(0) + " must be rank 1 (one sum per gradient)");
  OutputSpec scalar;
  scalar.shape = {1};
  return {scalar, scalar};
}

void clip_scale_kernel(KernelContext& k) {
  const numerics::ClipResult r =
      numerics::clip_scale(k.in[0].f32, static_cast<size_t>(k.in[0].numel()),
                           static_cast<float>(k.op.attrs.f("max_norm")));
  k.out[0].f32[0] = r.scale;
  k.out[1].f32[0] = r.total_norm;
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

void encode_sgd(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Lr, "lr");
  w.f32(Field::Momentum, "momentum");
  w.f32(Field::WeightDecay, "weight_decay");
}

void decode_sgd(const Instruction& inst, ir::Attrs& a) {
  a.set("lr", field_f64(inst, Field::Lr));
  a.set("momentum", field_f64(inst, Field::Momentum));
  a.set("weight_decay", field_f64(inst, Field::WeightDecay));
}

void encode_adamw(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Lr, "lr");
  inst.set_f32(Field::OneMinusBeta1, static_cast<float>(1.0 - op.attrs.f("beta1")));
  inst.set_f32(Field::OneMinusBeta2, static_cast<float>(1.0 - op.attrs.f("beta2")));
  w.f32(Field::AdamEps, "eps");
  w.f32(Field::WeightDecay, "weight_decay");
}

void decode_adamw(const Instruction& inst, ir::Attrs& a) {
  a.set("lr", field_f64(inst, Field::Lr));
  a.set("beta1", 1.0 - field_f64(inst, Field::OneMinusBeta1));
  a.set("beta2", 1.0 - field_f64(inst, Field::OneMinusBeta2));
  a.set("eps", field_f64(inst, Field::AdamEps));
  a.set("weight_decay", field_f64(inst, Field::WeightDecay));
}

void encode_clip_scale(const ir::Op& op, Instruction& inst) {
  FieldWriter(op, inst).f32(Field::MaxNorm, "max_norm");
}

void decode_clip_scale(const Instruction& inst, ir::Attrs& a) {
  a.set("max_norm", field_f64(inst, Field::MaxNorm));
}

}  // namespace

void register_optimizer_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::Sgd,
                  FusionClass::Ppu,
                  {{"weight"},
                   {"grad"},
                   {"velocity", true},
                   {"grad_scale", true},
                   {"weight_copy", true},
                   {"found_inf", true}},
                  {"weight_out", "velocity_out", "weight_copy_out"},
                  {{"lr", AttrKind::Float, std::nullopt},
                   {"momentum", AttrKind::Float, AttrValue(0.0)},
                   {"weight_decay", AttrKind::Float, AttrValue(0.0)}},
                  infer_sgd,
                  nullptr,
                  sgd_kernel,
                  "PyTorch SGD step (dampening 0, no Nesterov), in place: g = grad + weight_decay "
                  "* weight; with momentum, v = momentum * v + g and g = v; weight -= lr * g. "
                  "weight_out and velocity_out alias weight and velocity; velocity (zero at the "
                  "start) is required when momentum != 0 and left unchanged when momentum == 0. "
                  "grad_scale ([1], gradient clipping's factor) multiplies grad first when given. "
                  "weight_copy (a 16-bit copy of the weight, mixed precision) receives the new "
                  "weight rounded to its type; weight_copy_out aliases it. found_inf ([1], dynamic "
                  "loss scaling) skips the update when nonzero. No backward rule."},
         {OpType::Sgd,
          Opcode::Sgd,
          {{"weight", Slot::Weight},
           {"grad", Slot::Grad},
           {"velocity", Slot::Velocity},
           {"grad_scale", Slot::GradScale},
           {"weight_copy", Slot::WeightCopy},
           {"found_inf", Slot::FoundInf}},
          {{"weight_out", Slot::Weight},
           {"velocity_out", Slot::Velocity},
           {"weight_copy_out", Slot::WeightCopy}},
          false,
          encode_sgd,
          decode_sgd,
          always});
  add_op(r,
         OpSchema{OpType::AdamW,
                  FusionClass::Ppu,
                  {{"weight"},
                   {"grad"},
                   {"exp_avg"},
                   {"exp_avg_sq"},
                   {"step"},
                   {"grad_scale", true},
                   {"weight_copy", true},
                   {"found_inf", true}},
                  {"weight_out", "exp_avg_out", "exp_avg_sq_out", "step_out", "weight_copy_out"},
                  {{"lr", AttrKind::Float, std::nullopt},
                   {"beta1", AttrKind::Float, AttrValue(0.9)},
                   {"beta2", AttrKind::Float, AttrValue(0.999)},
                   {"eps", AttrKind::Float, AttrValue(1e-8)},
                   {"weight_decay", AttrKind::Float, AttrValue(0.01)}},
                  infer_adamw,
                  nullptr,
                  adamw_kernel,
                  "PyTorch AdamW step, in place: step += 1 = t; weight *= 1 - lr * weight_decay; "
                  "m = beta1 m + (1 - beta1) grad; v = beta2 v + (1 - beta2) grad^2; weight -= "
                  "lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps). The outputs alias "
                  "weight, exp_avg (m), exp_avg_sq (v) and step ([1] i32), all zero at the start "
                  "but the weight. grad_scale ([1], gradient clipping's factor) multiplies grad "
                  "first when given. weight_copy (a 16-bit copy of the weight, mixed precision) "
                  "receives the new weight rounded to its type; weight_copy_out aliases it. "
                  "found_inf ([1], dynamic loss scaling) skips the update, step count included, "
                  "when nonzero. No backward rule."},
         {OpType::AdamW,
          Opcode::AdamW,
          {{"weight", Slot::Weight},
           {"grad", Slot::Grad},
           {"exp_avg", Slot::ExpAvg},
           {"exp_avg_sq", Slot::ExpAvgSq},
           {"step", Slot::Step},
           {"grad_scale", Slot::GradScale},
           {"weight_copy", Slot::WeightCopy},
           {"found_inf", Slot::FoundInf}},
          {{"weight_out", Slot::Weight},
           {"exp_avg_out", Slot::ExpAvg},
           {"exp_avg_sq_out", Slot::ExpAvgSq},
           {"step_out", Slot::Step},
           {"weight_copy_out", Slot::WeightCopy}},
          false,
          encode_adamw,
          decode_adamw,
          always});
  add_op(r,
         OpSchema{OpType::ClipScale,
                  FusionClass::Ppu,
                  {{"sumsq"}},
                  {"scale", "total_norm"},
                  {{"max_norm", AttrKind::Float, std::nullopt}},
                  infer_clip_scale,
                  nullptr,
                  clip_scale_kernel,
                  "Gradient clipping by global norm (PyTorch's clip_grad_norm_, norm type 2) from "
                  "each gradient's sum of squares sumsq [K]: total_norm = sqrt(sum of "
                  "sqrt(sumsq_i)^2), scale = min(1, max_norm * (1 / (total_norm + 1e-6))), both "
                  "[1]. The updates multiply their gradients by scale. No backward rule."},
         {OpType::ClipScale,
          Opcode::ClipScale,
          {{"sumsq", Slot::SumSq}},
          {{"scale", Slot::GradScale}, {"total_norm", Slot::TotalNorm}},
          false,
          encode_clip_scale,
          decode_clip_scale,
          always});
}

}  // namespace s2::ir
