#include "simulator/functional/softmax.h"

#include <vector>

#include "isa/numerics/softmax.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Field;
using isa::Slot;

// [rows, C] view of a descriptor: C its last dimension, the second-to-last indexes causal rows.
numerics::SoftmaxGeometry geometry(const isa::TensorDesc& d) {
  numerics::SoftmaxGeometry g;
  g.cols = d.shape[d.rank - 1];
  g.rows = g.cols == 0 ? 0 : static_cast<size_t>(d.elements() / g.cols);
  g.rows_per_matrix = d.rank >= 2 ? d.shape[d.rank - 2] : 1;
  return g;
}

}  // namespace

void run_softmax(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const std::vector<float> x = ops.f32(Slot::X);
  const bool masked = ops.has(Slot::Mask);
  const std::vector<float> mask = masked ? ops.f32(Slot::Mask) : std::vector<float>{};
  std::vector<float> y(x.size());
  numerics::softmax_forward(geometry(ops.desc(Slot::X)), x.data(), masked ? mask.data() : nullptr,
                            inst.f32(Field::Scale), inst.flag(Field::Causal), y.data());
  ops.write(Slot::Y, y);
}

void run_softmax_bwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const std::vector<float> dy = ops.f32(Slot::Dy), y = ops.f32(Slot::Y);
  std::vector<float> dx(y.size());
  numerics::softmax_backward(geometry(ops.desc(Slot::Y)), dy.data(), y.data(),
                             inst.f32(Field::Scale), dx.data());
  ops.write(Slot::Dx, dx);
}

}  // namespace s2::sim::functional
