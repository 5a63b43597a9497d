#include "simulator/functional/sgd.h"

#include "simulator/functional/operands.h"

namespace s2::sim::functional {

void run_sgd(const isa::Instruction& inst, DramImage& image) {
  using isa::Slot;
  Operands ops(inst, image);
  const float lr = inst.f32(isa::Field::Lr);
  const float momentum = inst.f32(isa::Field::Momentum);
  const float weight_decay = inst.f32(isa::Field::WeightDecay);
  std::vector<float> weight = ops.f32(Slot::Weight);
  const std::vector<float> grad = ops.f32(Slot::Grad);
  auto velocity = ops.opt_f32(Slot::Velocity);
  if (momentum != 0.0f && !velocity) ops.fail("momentum is not 0, but there is no velocity");
  if (grad.size() != weight.size() || (velocity && velocity->size() != weight.size()))
    ops.fail("weight, grad and velocity must have equal element counts");
  for (size_t i = 0; i < weight.size(); ++i) {
    float g = grad[i];
    if (weight_decay != 0.0f) g = g + weight_decay * weight[i];
    if (momentum != 0.0f) {
      (*velocity)[i] = momentum * (*velocity)[i] + g;
      g = (*velocity)[i];
    }
    weight[i] = weight[i] - lr * g;
  }
  ops.write(Slot::Weight, weight);
  if (velocity) ops.write(Slot::Velocity, *velocity);
}

}  // namespace s2::sim::functional
