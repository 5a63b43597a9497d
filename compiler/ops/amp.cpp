// Dynamic loss scaling (s2c compile --precision fp16), PyTorch's torch.cuda.amp.GradScaler in
// the instruction stream; the arithmetic is isa/numerics/amp.h, shared with the simulator.
//
// amp_check: flag [1] = 1 when any element of x (a scaled gradient) is an inf or a NaN, else 0.
// The flags of all gradients are summed (a reduce) into found_inf, which every update reads
// (it skips its update when found_inf is nonzero) and so does
// amp_update: in place on the loss scale [1] f32, its growth tracker [1] i32 and the inverse
// scale [1] f32 the next step's updates unscale their gradients with:
//   found_inf:  scale *= backoff_factor, tracker = 0
//   otherwise:  tracker + 1 == growth_interval ? (scale *= growth_factor when finite,
//               tracker = 0) : tracker += 1
//   inv_scale = 1 / scale (in double, rounded once)

#include "isa/numerics/amp.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/fp32.h"

namespace s2::ir {
namespace {

void expect_scalar(const InferContext& ctx, size_t i, DType dtype) {
  ctx.expect_dtype(i, dtype);
  ctx.expect_shape(i, {1});
}

std::vector<OutputSpec> infer_amp_check(const InferContext& ctx) {
  ctx.expect_float(0);
  OutputSpec flag;  // f32, whatever the gradient's type
  flag.shape = {1};
  return {flag};
}

void amp_check_kernel(KernelContext& k) {
  k.out[0].f32[0] =
      numerics::any_nonfinite(k.in[0].f32, static_cast<size_t>(k.in[0].numel())) ? 1.0f : 0.0f;
}

std::vector<OutputSpec> infer_amp_update(const InferContext& ctx) {
  for (const char* attr : {"growth_factor", "backoff_factor"}) {
    const double v = ctx.attrs().f(attr);
    if (!(v > 0.0 && std::isfinite(static_cast<float>(v))))
      ctx.fail(std::string(attr) + " " + attr_value_text(AttrValue(v)) + " must be finite and > 0");
  }
  const int64_t interval = ctx.attrs().i("growth_interval");
  if (interval < 1 || interval > INT32_MAX)
    ctx.fail("growth_interval " + std::to_string(interval) + " must be in [1, 2^31)");
  expect_scalar(ctx, 0, DType::F32);
  expect_scalar(ctx, 1, DType::F32);
  expect_scalar(ctx, 2, DType::I32);
  std::vector<OutputSpec> out{ctx.in_place(1), ctx.in_place(2)};
  if (ctx.has_input(3)) {
    expect_scalar(ctx, 3, DType::F32);
    out.push_back(ctx.in_place(3));
  } else {
    OutputSpec absent;
    absent.absent = true;
    out.push_back(absent);
  }
  return out;
}

numerics::AmpScaleParams amp_params(const Op& op) {
  numerics::AmpScaleParams p;
  p.growth_factor = numerics::load(static_cast<float>(op.attrs.f("growth_factor")));
  p.backoff_factor = numerics::load(static_cast<float>(op.attrs.f("backoff_factor")));
  p.growth_interval = static_cast<uint32_t>(op.attrs.i("growth_interval"));
  return p;
}

void amp_update_kernel(KernelContext& k) {
  float& scale = k.out[0].f32[0];      // the memory of loss_scale
  int32_t& tracker = k.out[1].i32[0];  // the memory of growth_tracker
  numerics::amp_update_scale(amp_params(k.op), k.in[0].f32[0] != 0.0f, scale, tracker);
  if (k.out[2].present()) k.out[2].f32[0] = numerics::amp_inv_scale(scale);
}

void encode_amp_update(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::GrowthFactor, "growth_factor");
  w.f32(Field::BackoffFactor, "backoff_factor");
  w.uint(Field::GrowthInterval, "growth_interval", op.attrs.i("growth_interval"));
}

void decode_amp_update(const Instruction& inst, ir::Attrs& a) {
  a.set("growth_factor", field_f64(inst, Field::GrowthFactor));
  a.set("backoff_factor", field_f64(inst, Field::BackoffFactor));
  a.set("growth_interval", field_i64(inst, Field::GrowthInterval));
}

}  // namespace

void register_amp_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::AmpCheck,
                  FusionClass::Ppu,
                  {{"x"}},
                  {"found_inf"},
                  {},
                  infer_amp_check,
                  nullptr,
                  amp_check_kernel,
                  "Dynamic loss scaling's overflow check: found_inf [1] f32 = 1 when any element "
                  "of x is an inf or a NaN, else 0. No backward rule."},
         {OpType::AmpCheck,
          Opcode::AmpCheck,
          {{"x", Slot::X}},
          {{"found_inf", Slot::FoundInf}},
          false,
          encode_nothing,
          decode_nothing,
          always});
  add_op(r,
         OpSchema{OpType::AmpUpdate,
                  FusionClass::Ppu,
                  {{"found_inf"}, {"loss_scale"}, {"growth_tracker"}, {"inv_scale", true}},
                  {"loss_scale_out", "growth_tracker_out", "inv_scale_out"},
                  {{"growth_factor", AttrKind::Float, AttrValue(2.0)},
                   {"backoff_factor", AttrKind::Float, AttrValue(0.5)},
                   {"growth_interval", AttrKind::Int, AttrValue(int64_t{2000})}},
                  infer_amp_update,
                  nullptr,
                  amp_update_kernel,
                  "Dynamic loss scaling's scale update (PyTorch's _amp_update_scale_), in place: "
                  "after an overflow (found_inf != 0) loss_scale *= backoff_factor and the "
                  "growth tracker restarts; after growth_interval clean steps loss_scale *= "
                  "growth_factor (when finite); inv_scale = 1 / loss_scale for the next step's "
                  "updates. No backward rule."},
         {OpType::AmpUpdate,
          Opcode::AmpUpdate,
          {{"found_inf", Slot::FoundInf},
           {"loss_scale", Slot::LossScale},
           {"growth_tracker", Slot::GrowthTracker},
           {"inv_scale", Slot::InvScale}},
          {{"loss_scale_out", Slot::LossScale},
           {"growth_tracker_out", Slot::GrowthTracker},
           {"inv_scale_out", Slot::InvScale}},
          false,
          encode_amp_update,
          decode_amp_update,
          always});
}

}  // namespace s2::ir
