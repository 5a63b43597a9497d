#include "simulator/functional/reduce.h"

#include <string>

#include "isa/numerics/reduce.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {

void run_reduce(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const isa::TensorDesc& xd = ops.desc(isa::Slot::X);
  const uint32_t axes = inst.u(isa::Field::Axes);
  if (axes >> xd.rank != 0)
    ops.fail("axes mask " + std::to_string(axes) + " names a dimension past x's rank " +
             std::to_string(xd.rank));
  std::vector<uint64_t> shape;
  for (uint32_t d : xd.dims())
    shape.push_back(d);
  const std::vector<float> x = ops.f32(isa::Slot::X);
  std::vector<float> y(numerics::reduce_output_size(shape, axes));
  numerics::reduce(inst.as<isa::ReduceOp>(isa::Field::Reduce), x.data(), shape, axes, y.data());
  if (y.size() != ops.desc(isa::Slot::Y).elements())
    ops.fail("y has " + std::to_string(ops.desc(isa::Slot::Y).elements()) +
             " elements, the reduction leaves " + std::to_string(y.size()));
  ops.write(isa::Slot::Y, y);
}

}  // namespace s2::sim::functional
