#include "simulator/functional/dropout.h"

#include <vector>

#include "isa/numerics/philox.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {

void run_dropout_mask(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  std::vector<int32_t> counter = ops.i32(isa::Slot::Counter);
  if (counter.size() != 1) ops.fail("counter must hold one element");
  std::vector<float> mask(ops.desc(isa::Slot::Y).elements());
  const auto step = static_cast<uint32_t>(counter[0]);
  numerics::dropout_mask(inst.f32(isa::Field::Ratio), {inst.u(isa::Field::Seed), step}, mask.data(),
                         mask.size());
  ops.write(isa::Slot::Y, mask);
  counter[0] = static_cast<int32_t>(step + 1u);
  ops.write(isa::Slot::Counter, counter);
}

}  // namespace s2::sim::functional
