#include "simulator/functional/batch_norm.h"

#include <string>
#include <vector>

#include "isa/numerics/batch_norm.h"
#include "isa/numerics/low_precision.h"
#include "simulator/functional/epilogue.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Slot;

// [N, C, S] view of a rank-4 [N, C, H, W] activation.
numerics::BnGeometry geometry(const isa::TensorDesc& d) {
  numerics::BnGeometry g;
  g.n = d.shape[0], g.c = d.shape[1], g.s = size_t{d.shape[2]} * d.shape[3];
  return g;
}

}  // namespace

void run_bn_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const numerics::BnGeometry g = geometry(ops.desc(Slot::X));
  if (g.count() <= 1)
    ops.fail("training-mode batch norm needs more than one value per channel, x has " +
             std::to_string(g.count()));
  const std::vector<float> x = ops.f32(Slot::X), gamma = ops.f32(Slot::Gamma),
                           beta = ops.f32(Slot::Beta);
  const auto stats = ops.opt_f32(Slot::Stats);
  auto running_mean = ops.opt_f32(Slot::RunningMean);
  auto running_var = ops.opt_f32(Slot::RunningVar);
  std::vector<float> y(x.size()), mean_out(g.c), invstd_out(g.c);
  numerics::BnForwardArgs a;
  a.x = x.data(), a.gamma = gamma.data(), a.beta = beta.data();
  a.stats = data_or_null(stats);
  a.running_mean_in = a.running_mean_out = running_mean ? running_mean->data() : nullptr;
  a.running_var_in = a.running_var_out = running_var ? running_var->data() : nullptr;
  a.eps = inst.f32(isa::Field::Eps);
  a.momentum = inst.f32(isa::Field::BnMomentum);
  a.y = y.data(), a.saved_mean = mean_out.data(), a.saved_invstd = invstd_out.data();
  numerics::batch_norm_forward(g, a);
  EpilogueOperands e;
  e.act = inst.as<isa::Activation>(isa::Field::Act);
  std::vector<float> pre;
  if (ops.has(Slot::Pre)) {
    e.pre = &pre;
    e.pre_type = ops.desc(Slot::Pre).dtype;
  }
  run_epilogue(dp.ppu, y, e, ops.desc(Slot::Y).dtype);
  ops.write(Slot::Y, y);
  if (e.pre != nullptr) ops.write(Slot::Pre, pre);
  ops.write(Slot::Mean, mean_out);
  ops.write(Slot::InvStd, invstd_out);
  if (running_mean) ops.write(Slot::RunningMean, *running_mean);
  if (running_var) ops.write(Slot::RunningVar, *running_var);
}

void run_bn_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const numerics::BnGeometry g = geometry(ops.desc(Slot::X));
  std::vector<float> dy = ops.f32(Slot::Dy);
  const std::vector<float> x = ops.f32(Slot::X), gamma = ops.f32(Slot::Gamma),
                           mean = ops.f32(Slot::Mean), invstd = ops.f32(Slot::InvStd);
  if (const auto gate = ops.opt_f32(Slot::Gate)) {
    EpilogueOperands e;
    e.gate = gate->data();
    e.gate_act = gate_act_of(inst);
    const isa::DType dy_type = ops.desc(Slot::Dy).dtype;
    run_epilogue(dp.ppu, dy, e, dy_type);
    for (float& v : dy)  // the lanes' store: the gated dy in dy's type
      v = numerics::round_to(dy_type, v);
  }
  std::vector<float> dx(x.size()), dgamma(g.c), dbeta(g.c);
  numerics::batch_norm_backward(g, dy.data(), x.data(), gamma.data(), mean.data(), invstd.data(),
                                dx.data(), dgamma.data(), dbeta.data());
  ops.write(Slot::Dx, dx);
  ops.write(Slot::DGamma, dgamma);
  ops.write(Slot::DBeta, dbeta);
}

}  // namespace s2::sim::functional
