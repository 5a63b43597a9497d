#include "simulator/functional/conv.h"

#include "simulator/functional/epilogue.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {

using isa::Field;
using isa::Slot;
using numerics::ConvGeometry;

ConvGeometry conv_geometry(const isa::Instruction& inst, const isa::TensorDesc& input,
                           const isa::TensorDesc& filters, const isa::TensorDesc& output) {
  ConvGeometry g;
  g.n = input.shape[0], g.c = input.shape[1], g.h = input.shape[2], g.w = input.shape[3];
  g.k = filters.shape[0], g.r = filters.shape[2], g.s = filters.shape[3];
  g.p = output.shape[2], g.q = output.shape[3];
  g.sh = inst.u(Field::StrideH), g.sw = inst.u(Field::StrideW);
  g.pt = inst.u(Field::PadTop), g.pl = inst.u(Field::PadLeft);
  g.dh = inst.u(Field::DilationH), g.dw = inst.u(Field::DilationW);
  g.groups = inst.u(Field::Groups);
  return g;
}

void run_conv2d(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const ConvGeometry g =
      conv_geometry(inst, ops.desc(Slot::X), ops.desc(Slot::W), ops.desc(Slot::Y));
  const std::vector<float> x = ops.f32(Slot::X), w = ops.f32(Slot::W);
  const auto bias = ops.opt_f32(Slot::Bias);
  const auto residual = ops.opt_f32(Slot::Residual);
  std::vector<float> y(g.n * g.k * g.p * g.q);
  numerics::conv2d_forward(g, x.data(), w.data(), nullptr, y.data(), dp.pe);
  EpilogueOperands e;
  if (bias) e.bias = broadcast_channels(*bias, g.n, g.k, g.p * g.q);
  e.residual = data_or_null(residual);
  e.act = inst.as<isa::Activation>(Field::Act);
  std::vector<float> wide, pre;
  if (ops.has(Slot::Pre)) {
    e.pre = &pre;
    e.pre_type = ops.desc(Slot::Pre).dtype;
  }
  const bool stats = ops.has(Slot::Stats);
  run_epilogue(dp.ppu, y, e, ops.desc(Slot::Y).dtype, stats ? &wide : nullptr);
  ops.write(Slot::Y, y);
  if (e.pre != nullptr) ops.write(Slot::Pre, pre);
  if (stats) ops.write(Slot::Stats, channel_stats(wide.empty() ? y : wide, g.n, g.k, g.p * g.q));
}

void run_conv2d_bwd_data(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const ConvGeometry g =
      conv_geometry(inst, ops.desc(Slot::Dx), ops.desc(Slot::W), ops.desc(Slot::Dy));
  const std::vector<float> dy = ops.f32(Slot::Dy), w = ops.f32(Slot::W);
  const auto residual = ops.opt_f32(Slot::Residual);
  const auto gate = ops.opt_f32(Slot::Gate);
  std::vector<float> dx(g.n * g.c * g.h * g.w);
  numerics::conv2d_backward_data(g, dy.data(), w.data(), dx.data(), dp.pe);
  EpilogueOperands e;
  e.residual = data_or_null(residual);
  e.gate = data_or_null(gate);
  e.gate_act = gate_act_of(inst);
  run_epilogue(dp.ppu, dx, e, ops.desc(Slot::Dx).dtype);
  ops.write(Slot::Dx, dx);
}

void run_conv2d_bwd_weight(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const ConvGeometry g =
      conv_geometry(inst, ops.desc(Slot::X), ops.desc(Slot::Dw), ops.desc(Slot::Dy));
  const std::vector<float> x = ops.f32(Slot::X), dy = ops.f32(Slot::Dy);
  const auto residual = ops.opt_f32(Slot::Residual);
  std::vector<float> dw(g.k * g.taps());
  numerics::conv2d_backward_weight(g, x.data(), dy.data(), dw.data(), dp.pe);
  EpilogueOperands e;
  e.residual = data_or_null(residual);
  run_epilogue(dp.ppu, dw, e, ops.desc(Slot::Dw).dtype);
  ops.write(Slot::Dw, dw);
}

}  // namespace s2::sim::functional
