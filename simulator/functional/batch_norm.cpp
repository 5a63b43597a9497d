#include "simulator/functional/batch_norm.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "simulator/functional/epilogue.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Slot;

// [N, C, S] view of a rank-4 [N, C, H, W] activation.
struct Planes {
  size_t n, c, s;
  size_t at(size_t nn, size_t cc) const { return (nn * c + cc) * s; }
  double count() const { return static_cast<double>(n * s); }
};

Planes planes_of(const isa::TensorDesc& d) {
  return {d.shape[0], d.shape[1], size_t{d.shape[2]} * d.shape[3]};
}

struct Moments {
  double mean, var, unbiased;
};

Moments batch_moments(const Planes& g, const float* x, size_t c) {
  double sum = 0.0;
  for (size_t n = 0; n < g.n; ++n)
    for (size_t s = 0, at = g.at(n, c); s < g.s; ++s)
      sum += static_cast<double>(x[at + s]);
  const double mean = sum / g.count();
  double sq = 0.0;
  for (size_t n = 0; n < g.n; ++n)
    for (size_t s = 0, at = g.at(n, c); s < g.s; ++s) {
      const double d = static_cast<double>(x[at + s]) - mean;
      sq += d * d;
    }
  return {mean, sq / g.count(), sq / (g.count() - 1.0)};
}

Moments stats_moments(const Planes& g, const std::vector<float>& stats, size_t c) {
  const double count = g.count();
  const double mean = static_cast<double>(stats[c]) / count;
  const double var = std::max(0.0, static_cast<double>(stats[g.c + c]) / count - mean * mean);
  return {mean, var, var * count / (count - 1.0)};
}

}  // namespace

void run_bn_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const Planes g = planes_of(ops.desc(Slot::X));
  if (g.n * g.s <= 1)
    ops.fail("training-mode batch norm needs more than one value per channel, x has " +
             std::to_string(g.n * g.s));
  const double eps = static_cast<double>(inst.f32(isa::Field::Eps));
  const double momentum = static_cast<double>(inst.f32(isa::Field::BnMomentum));
  const std::vector<float> x = ops.f32(Slot::X), gamma = ops.f32(Slot::Gamma),
                           beta = ops.f32(Slot::Beta);
  const auto stats = ops.opt_f32(Slot::Stats);
  auto running_mean = ops.opt_f32(Slot::RunningMean);
  auto running_var = ops.opt_f32(Slot::RunningVar);
  std::vector<float> y(x.size()), mean_out(g.c), invstd_out(g.c);
  for (size_t c = 0; c < g.c; ++c) {
    const Moments mo = stats ? stats_moments(g, *stats, c) : batch_moments(g, x.data(), c);
    const double invstd = 1.0 / std::sqrt(mo.var + eps);
    const double scale = static_cast<double>(gamma[c]), shift = static_cast<double>(beta[c]);
    for (size_t n = 0; n < g.n; ++n)
      for (size_t s = 0, at = g.at(n, c); s < g.s; ++s)
        y[at + s] = static_cast<float>((static_cast<double>(x[at + s]) - mo.mean) * invstd *
                                           scale +
                                       shift);
    mean_out[c] = static_cast<float>(mo.mean);
    invstd_out[c] = static_cast<float>(invstd);
    if (running_mean)
      (*running_mean)[c] = static_cast<float>((1.0 - momentum) *
                                                  static_cast<double>((*running_mean)[c]) +
                                              momentum * mo.mean);
    if (running_var)
      (*running_var)[c] = static_cast<float>((1.0 - momentum) *
                                                 static_cast<double>((*running_var)[c]) +
                                             momentum * mo.unbiased);
  }
  EpilogueOperands e;
  e.relu = inst.as<isa::Activation>(isa::Field::Act) == isa::Activation::Relu;
  run_epilogue(dp.ppu, y, e);
  ops.write(Slot::Y, y);
  ops.write(Slot::Mean, mean_out);
  ops.write(Slot::InvStd, invstd_out);
  if (running_mean) ops.write(Slot::RunningMean, *running_mean);
  if (running_var) ops.write(Slot::RunningVar, *running_var);
}

void run_bn_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const Planes g = planes_of(ops.desc(Slot::X));
  std::vector<float> dy = ops.f32(Slot::Dy);
  const std::vector<float> x = ops.f32(Slot::X), gamma = ops.f32(Slot::Gamma),
                           mean = ops.f32(Slot::Mean), invstd = ops.f32(Slot::InvStd);
  const auto gate = ops.opt_f32(Slot::Gate);
  EpilogueOperands e;
  e.gate = data_or_null(gate);
  run_epilogue(dp.ppu, dy, e);
  const double count = g.count();
  std::vector<float> dx(x.size()), dgamma(g.c), dbeta(g.c);
  for (size_t c = 0; c < g.c; ++c) {
    const double m = static_cast<double>(mean[c]), is = static_cast<double>(invstd[c]);
    double sum_dy = 0.0, sum_dy_xhat = 0.0;
    for (size_t n = 0; n < g.n; ++n)
      for (size_t s = 0, at = g.at(n, c); s < g.s; ++s) {
        const double xhat = (static_cast<double>(x[at + s]) - m) * is;
        sum_dy += static_cast<double>(dy[at + s]);
        sum_dy_xhat += static_cast<double>(dy[at + s]) * xhat;
      }
    dbeta[c] = static_cast<float>(sum_dy);
    dgamma[c] = static_cast<float>(sum_dy_xhat);
    const double mean_dy = sum_dy / count, mean_dy_xhat = sum_dy_xhat / count;
    const double gain = static_cast<double>(gamma[c]) * is;
    for (size_t n = 0; n < g.n; ++n)
      for (size_t s = 0, at = g.at(n, c); s < g.s; ++s) {
        const double xhat = (static_cast<double>(x[at + s]) - m) * is;
        dx[at + s] = static_cast<float>(
            gain * ((static_cast<double>(dy[at + s]) - mean_dy) - xhat * mean_dy_xhat));
      }
  }
  ops.write(Slot::Dx, dx);
  ops.write(Slot::DGamma, dgamma);
  ops.write(Slot::DBeta, dbeta);
}

}  // namespace s2::sim::functional
