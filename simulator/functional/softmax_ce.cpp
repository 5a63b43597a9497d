#include "simulator/functional/softmax_ce.h"

#include <string>

#include "isa/numerics/softmax_ce.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {

using isa::Slot;

void run_softmax_ce(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const isa::TensorDesc& ld = ops.desc(Slot::Logits);
  const size_t rows = ld.shape[0], classes = ld.shape[1];
  const bool mean = inst.as<isa::LossReduction>(isa::Field::Reduction) == isa::LossReduction::Mean;
  if (ops.desc(Slot::Labels).shape[0] != rows)
    ops.fail("labels has " + std::to_string(ops.desc(Slot::Labels).shape[0]) + " entries for " +
             std::to_string(rows) + " rows of logits");
  const std::vector<float> x = ops.f32(Slot::Logits);
  const std::vector<int32_t> labels = ops.i32(Slot::Labels);
  const int32_t ignore = inst.i(isa::Field::IgnoreIndex);
  if (const auto bad = numerics::label_outside(labels.data(), rows, classes, ignore))
    ops.fail("label " + std::to_string(labels[*bad]) + " of sample " + std::to_string(*bad) +
             " is outside the class range [0," + std::to_string(classes) +
             ") and is not the ignore_index " + std::to_string(ignore));
  if (ops.has(Slot::Loss))
    ops.write(Slot::Loss, std::vector<float>{numerics::softmax_ce_loss(
                              x.data(), labels.data(), rows, classes, mean, ignore)});
  if (ops.has(Slot::DLogits)) {
    std::vector<float> dx(x.size());
    std::vector<float> dloss;
    if (ops.has(Slot::DLoss)) dloss = ops.f32(Slot::DLoss);
    numerics::softmax_ce_grad(x.data(), labels.data(), rows, classes, mean, ignore,
                              dloss.empty() ? nullptr : dloss.data(), dx.data());
    ops.write(Slot::DLogits, dx);
  }
}

}  // namespace s2::sim::functional
