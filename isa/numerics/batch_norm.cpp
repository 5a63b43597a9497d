#include "isa/numerics/batch_norm.h"

#include <algorithm>
#include <cmath>

namespace s2::numerics {
namespace {

struct Moments {
  double mean, var, unbiased;
};

Moments batch_moments(const BnGeometry& g, const float* x, size_t c) {
  const double count = static_cast<double>(g.count());
  double sum = 0.0;
  for (size_t n = 0; n < g.n; ++n)
    for (size_t s = 0, at = g.at(n, c); s < g.s; ++s)
      sum += static_cast<double>(x[at + s]);
  const double mean = sum / count;
  double sq = 0.0;
  for (size_t n = 0; n < g.n; ++n)
    for (size_t s = 0, at = g.at(n, c); s < g.s; ++s) {
      const double d = static_cast<double>(x[at + s]) - mean;
      sq += d * d;
    }
  return {mean, sq / count, sq / (count - 1.0)};
}

Moments stats_moments(const BnGeometry& g, const float* stats, size_t c) {
  const double count = static_cast<double>(g.count());
  const double mean = static_cast<double>(stats[c]) / count;
  const double var = std::max(0.0, static_cast<double>(stats[g.c + c]) / count - mean * mean);
  return {mean, var, var * count / (count - 1.0)};
}

float running_update(double momentum, float running, double batch) {
  return static_cast<float>((1.0 - momentum) * static_cast<double>(running) + momentum * batch);
}

}  // namespace

void batch_norm_forward(const BnGeometry& g, const BnForwardArgs& a) {
  const double eps = static_cast<double>(a.eps);
  const double momentum = static_cast<double>(a.momentum);
  for (size_t c = 0; c < g.c; ++c) {
    const Moments mo = a.stats ? stats_moments(g, a.stats, c) : batch_moments(g, a.x, c);
    const double invstd = 1.0 / std::sqrt(mo.var + eps);
    const double scale = static_cast<double>(a.gamma[c]), shift = static_cast<double>(a.beta[c]);
    for (size_t n = 0; n < g.n; ++n)
      for (size_t s = 0, at = g.at(n, c); s < g.s; ++s)
        a.y[at + s] = static_cast<float>(
            (static_cast<double>(a.x[at + s]) - mo.mean) * invstd * scale + shift);
    a.saved_mean[c] = static_cast<float>(mo.mean);
    a.saved_invstd[c] = static_cast<float>(invstd);
    if (a.running_mean_out)
      a.running_mean_out[c] = running_update(momentum, a.running_mean_in[c], mo.mean);
    if (a.running_var_out)
      a.running_var_out[c] = running_update(momentum, a.running_var_in[c], mo.unbiased);
  }
}

void batch_norm_backward(const BnGeometry& g, const float* dy, const float* x, const float* gamma,
                         const float* saved_mean, const float* saved_invstd, float* dx,
                         float* dgamma, float* dbeta) {
  const double count = static_cast<double>(g.count());
  for (size_t c = 0; c < g.c; ++c) {
    const double m = static_cast<double>(saved_mean[c]);
    const double is = static_cast<double>(saved_invstd[c]);
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
}

}  // namespace s2::numerics
