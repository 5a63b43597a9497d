#include "simulator/functional/sgd.h"

#include <cstdint>
#include <string>
#include <vector>

#include "isa/numerics/adamw.h"
#include "isa/numerics/amp.h"
#include "isa/numerics/clip.h"
#include "isa/numerics/fp32.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

// The gradient as the update uses it: times grad_scale (gradient clipping's factor, [1]) when
// the instruction has one, one rounding per element.
std::vector<float> scaled_grad(const Operands& ops) {
  std::vector<float> grad = ops.f32(isa::Slot::Grad);
  if (auto scale = ops.opt_f32(isa::Slot::GradScale)) {
    if (scale->size() != 1) ops.fail("grad_scale must have one element");
    const float s = (*scale)[0];
    for (float& g : grad)
      g = numerics::mul(g, s);
  }
  return grad;
}

// An optimizer given found_inf skips its update when it is nonzero (GradScaler.step).
bool overflowed(const Operands& ops) {
  const auto found = ops.opt_f32(isa::Slot::FoundInf);
  return found && (*found)[0] != 0.0f;
}

}  // namespace

void run_sgd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  using isa::Slot;
  Operands ops(inst, image);
  if (overflowed(ops)) return;
  LanePass pass;
  pass.op = LaneOp::Sgd;
  pass.sgd.lr = numerics::load(inst.f32(isa::Field::Lr));
  pass.sgd.momentum = numerics::load(inst.f32(isa::Field::Momentum));
  pass.sgd.weight_decay = numerics::load(inst.f32(isa::Field::WeightDecay));
  std::vector<float> weight = ops.f32(Slot::Weight);
  const std::vector<float> grad = scaled_grad(ops);
  auto velocity = ops.opt_f32(Slot::Velocity);
  if (pass.sgd.momentum != 0.0f && !velocity)
    ops.fail("momentum is not 0, but there is no velocity");
  if (grad.size() != weight.size() || (velocity && velocity->size() != weight.size()))
    ops.fail("weight, grad and velocity must have equal element counts");
  pass.elements = weight.size();
  float* v = velocity ? velocity->data() : nullptr;
  dp.ppu.run(pass, weight.data(), grad.data(), v, nullptr, weight.data(), v);
  ops.write(Slot::Weight, weight);
  if (velocity) ops.write(Slot::Velocity, *velocity);
  if (ops.has(Slot::WeightCopy)) {
    // The update's second store: the new weight in the copy's type, rounded by the PPU's
    // store (the RTL's fp16_round under --rtl ppu).
    LanePass copy;
    copy.op = LaneOp::Cast;
    copy.elements = weight.size();
    copy.out_type[0] = ops.desc(Slot::WeightCopy).dtype;
    std::vector<float> rounded(weight.size());
    dp.ppu.run(copy, weight.data(), nullptr, nullptr, nullptr, rounded.data(), nullptr);
    ops.write(Slot::WeightCopy, rounded);
  }
}

void run_adamw(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  using isa::Field;
  using isa::Slot;
  Operands ops(inst, image);
  if (overflowed(ops)) return;
  numerics::AdamWParams p;
  p.lr = numerics::load(inst.f32(Field::Lr));
  p.one_minus_beta1 = numerics::load(inst.f32(Field::OneMinusBeta1));
  p.one_minus_beta2 = numerics::load(inst.f32(Field::OneMinusBeta2));
  p.eps = numerics::load(inst.f32(Field::AdamEps));
  p.weight_decay = numerics::load(inst.f32(Field::WeightDecay));
  std::vector<float> weight = ops.f32(Slot::Weight), m = ops.f32(Slot::ExpAvg),
                     v = ops.f32(Slot::ExpAvgSq);
  const std::vector<float> grad = scaled_grad(ops);
  std::vector<int32_t> step = ops.i32(Slot::Step);
  if (grad.size() != weight.size() || m.size() != weight.size() || v.size() != weight.size())
    ops.fail("weight, grad, exp_avg and exp_avg_sq must have equal element counts");
  if (step[0] == INT32_MAX) ops.fail("the step count " + std::to_string(step[0]) + " overflows");
  step[0] += 1;
  const numerics::AdamWScalars s = numerics::adamw_scalars(p, step[0]);
  for (size_t i = 0; i < weight.size(); ++i)
    numerics::adamw_step(p, s, weight[i], grad[i], m[i], v[i]);
  ops.write(Slot::Weight, weight);
  if (ops.has(Slot::WeightCopy)) ops.write(Slot::WeightCopy, weight);
  ops.write(Slot::ExpAvg, m);
  ops.write(Slot::ExpAvgSq, v);
  ops.write(Slot::Step, step);
}

void run_amp_check(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  using isa::Slot;
  Operands ops(inst, image);
  const std::vector<float> x = ops.f32(Slot::X);
  ops.write(Slot::FoundInf,
            std::vector<float>{numerics::any_nonfinite(x.data(), x.size()) ? 1.0f : 0.0f});
}

void run_amp_update(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  using isa::Field;
  using isa::Slot;
  Operands ops(inst, image);
  numerics::AmpScaleParams p;
  p.growth_factor = numerics::load(inst.f32(Field::GrowthFactor));
  p.backoff_factor = numerics::load(inst.f32(Field::BackoffFactor));
  p.growth_interval = inst.u(Field::GrowthInterval);
  const bool found = ops.f32(Slot::FoundInf)[0] != 0.0f;
  float scale = ops.f32(Slot::LossScale)[0];
  int32_t tracker = ops.i32(Slot::GrowthTracker)[0];
  numerics::amp_update_scale(p, found, scale, tracker);
  ops.write(Slot::LossScale, std::vector<float>{scale});
  ops.write(Slot::GrowthTracker, std::vector<int32_t>{tracker});
  if (ops.has(Slot::InvScale))
    ops.write(Slot::InvScale, std::vector<float>{numerics::amp_inv_scale(scale)});
}

void run_clip_scale(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  using isa::Slot;
  Operands ops(inst, image);
  const std::vector<float> sumsq = ops.f32(Slot::SumSq);
  const numerics::ClipResult r = numerics::clip_scale(
      sumsq.data(), sumsq.size(), numerics::load(inst.f32(isa::Field::MaxNorm)));
  ops.write(Slot::GradScale, std::vector<float>{r.scale});
  ops.write(Slot::TotalNorm, std::vector<float>{r.total_norm});
}

}  // namespace s2::sim::functional
