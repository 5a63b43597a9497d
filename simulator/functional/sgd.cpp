#include "simulator/functional/sgd.h"

#include "isa/numerics/fp32.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {

void run_sgd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  using isa::Slot;
  Operands ops(inst, image);
  LanePass pass;
  pass.op = LaneOp::Sgd;
  pass.sgd.lr = numerics::load(inst.f32(isa::Field::Lr));
  pass.sgd.momentum = numerics::load(inst.f32(isa::Field::Momentum));
  pass.sgd.weight_decay = numerics::load(inst.f32(isa::Field::WeightDecay));
  std::vector<float> weight = ops.f32(Slot::Weight);
  const std::vector<float> grad = ops.f32(Slot::Grad);
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
}

}  // namespace s2::sim::functional
