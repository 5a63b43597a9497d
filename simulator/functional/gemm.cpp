#include "simulator/functional/gemm.h"

#include "isa/numerics/gemm.h"
#include "simulator/functional/epilogue.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {

void run_gemm(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const bool ta = inst.flag(isa::Field::TransA), tb = inst.flag(isa::Field::TransB);
  const isa::TensorDesc& ad = ops.desc(isa::Slot::A);
  const size_t m = ta ? ad.shape[1] : ad.shape[0];
  const size_t k = ta ? ad.shape[0] : ad.shape[1];
  const size_t n = ops.desc(isa::Slot::Y).shape[1];
  const std::vector<float> a = ops.f32(isa::Slot::A), b = ops.f32(isa::Slot::B);
  const auto bias = ops.opt_f32(isa::Slot::Bias);
  const auto residual = ops.opt_f32(isa::Slot::Residual);
  const auto gate = ops.opt_f32(isa::Slot::Gate);
  std::vector<float> y(m * n);
  numerics::gemm(m, n, k, a.data(), ta, b.data(), tb, nullptr, y.data(), dp.pe);
  EpilogueOperands e;
  if (bias) e.bias = broadcast_channels(*bias, m, n, 1);
  e.residual = data_or_null(residual);
  e.act = inst.as<isa::Activation>(isa::Field::Act);
  e.gate = data_or_null(gate);
  run_epilogue(dp.ppu, y, e);
  ops.write(isa::Slot::Y, y);
  if (ops.has(isa::Slot::Stats)) ops.write(isa::Slot::Stats, channel_stats(y, m, n, 1));
}

}  // namespace s2::sim::functional
