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
  e.gate_act = gate_act_of(inst);
  std::vector<float> wide, pre;
  if (ops.has(isa::Slot::Pre)) {
    e.pre = &pre;
    e.pre_type = ops.desc(isa::Slot::Pre).dtype;
  }
  const bool stats = ops.has(isa::Slot::Stats);
  run_epilogue(dp.ppu, y, e, ops.desc(isa::Slot::Y).dtype, stats ? &wide : nullptr);
  ops.write(isa::Slot::Y, y);
  if (e.pre != nullptr) ops.write(isa::Slot::Pre, pre);
  if (stats) ops.write(isa::Slot::Stats, channel_stats(wide.empty() ? y : wide, m, n, 1));
}

void run_bmm(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const bool ta = inst.flag(isa::Field::TransA), tb = inst.flag(isa::Field::TransB);
  const std::vector<uint32_t> a = ops.desc(isa::Slot::A).dims();
  const std::vector<uint32_t> y = ops.desc(isa::Slot::Y).dims();
  const size_t r = a.size();
  const size_t m = y[r - 2], n = y[r - 1], k = ta ? a[r - 2] : a[r - 1];
  size_t batches = 1;
  for (size_t i = 0; i + 2 < r; ++i)
    batches *= y[i];
  const std::vector<float> av = ops.f32(isa::Slot::A), bv = ops.f32(isa::Slot::B);
  std::vector<float> out(batches * m * n);
  numerics::bmm(batches, m, n, k, av.data(), ta, bv.data(), tb, out.data(), dp.pe);
  run_epilogue(dp.ppu, out, {}, ops.desc(isa::Slot::Y).dtype);  // a 16-bit y's write-back
  ops.write(isa::Slot::Y, out);
}

}  // namespace s2::sim::functional
