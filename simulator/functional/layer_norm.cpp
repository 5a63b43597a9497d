#include "simulator/functional/layer_norm.h"

#include <vector>

#include "isa/numerics/layer_norm.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Slot;

// [rows, D] view of x: D its last dimension.
numerics::LnGeometry geometry(const isa::TensorDesc& d) {
  numerics::LnGeometry g;
  g.d = d.shape[d.rank - 1];
  g.rows = g.d == 0 ? 0 : static_cast<size_t>(d.elements() / g.d);
  return g;
}

}  // namespace

void run_ln_fwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const numerics::LnGeometry g = geometry(ops.desc(Slot::X));
  const std::vector<float> x = ops.f32(Slot::X), gamma = ops.f32(Slot::Gamma),
                           beta = ops.f32(Slot::Beta);
  std::vector<float> y(x.size()), mean(g.rows), invstd(g.rows);
  numerics::layer_norm_forward(g, x.data(), gamma.data(), beta.data(), inst.f32(isa::Field::Eps),
                               y.data(), mean.data(), invstd.data());
  ops.write(Slot::Y, y);
  ops.write(Slot::Mean, mean);
  ops.write(Slot::InvStd, invstd);
}

void run_ln_bwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const numerics::LnGeometry g = geometry(ops.desc(Slot::X));
  const std::vector<float> dy = ops.f32(Slot::Dy), x = ops.f32(Slot::X),
                           gamma = ops.f32(Slot::Gamma), mean = ops.f32(Slot::Mean),
                           invstd = ops.f32(Slot::InvStd);
  std::vector<float> dx(x.size()), dgamma(g.d), dbeta(g.d);
  numerics::layer_norm_backward(g, dy.data(), x.data(), gamma.data(), mean.data(), invstd.data(),
                                dx.data(), dgamma.data(), dbeta.data());
  ops.write(Slot::Dx, dx);
  ops.write(Slot::DGamma, dgamma);
  ops.write(Slot::DBeta, dbeta);
}

}  // namespace s2::sim::functional
