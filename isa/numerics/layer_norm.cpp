#include "isa/numerics/layer_norm.h"

#include <cmath>
#include <vector>

namespace s2::numerics {

void layer_norm_forward(const LnGeometry& g, const float* x, const float* gamma, const float* beta,
                        float eps, float* y, float* saved_mean, float* saved_invstd) {
  const double count = static_cast<double>(g.d);
  for (size_t r = 0; r < g.rows; ++r) {
    const float* row = x + r * g.d;
    double sum = 0.0;
    for (size_t d = 0; d < g.d; ++d)
      sum += static_cast<double>(row[d]);
    const double mean = sum / count;
    double sq = 0.0;
    for (size_t d = 0; d < g.d; ++d) {
      const double v = static_cast<double>(row[d]) - mean;
      sq += v * v;
    }
    const double invstd = 1.0 / std::sqrt(sq / count + static_cast<double>(eps));
    for (size_t d = 0; d < g.d; ++d)
      y[r * g.d + d] = static_cast<float>((static_cast<double>(row[d]) - mean) * invstd *
                                              static_cast<double>(gamma[d]) +
                                          static_cast<double>(beta[d]));
    saved_mean[r] = static_cast<float>(mean);
    saved_invstd[r] = static_cast<float>(invstd);
  }
}

void layer_norm_backward(const LnGeometry& g, const float* dy, const float* x, const float* gamma,
                         const float* saved_mean, const float* saved_invstd, float* dx,
                         float* dgamma, float* dbeta) {
  const double count = static_cast<double>(g.d);
  std::vector<double> sum_dy(g.d, 0.0), sum_dy_xhat(g.d, 0.0);
  for (size_t r = 0; r < g.rows; ++r) {
    const size_t at = r * g.d;
    const double m = static_cast<double>(saved_mean[r]);
    const double is = static_cast<double>(saved_invstd[r]);
    double sum_g = 0.0, sum_g_xhat = 0.0;
    for (size_t d = 0; d < g.d; ++d) {
      const double xhat = (static_cast<double>(x[at + d]) - m) * is;
      const double v = static_cast<double>(dy[at + d]);
      const double gd = v * static_cast<double>(gamma[d]);
      sum_g += gd;
      sum_g_xhat += gd * xhat;
      sum_dy[d] += v;
      sum_dy_xhat[d] += v * xhat;
    }
    const double mean_g = sum_g / count, mean_g_xhat = sum_g_xhat / count;
    for (size_t d = 0; d < g.d; ++d) {
      const double xhat = (static_cast<double>(x[at + d]) - m) * is;
      const double gd = static_cast<double>(dy[at + d]) * static_cast<double>(gamma[d]);
      dx[at + d] = static_cast<float>(is * ((gd - mean_g) - xhat * mean_g_xhat));
    }
  }
  for (size_t d = 0; d < g.d; ++d) {
    dgamma[d] = static_cast<float>(sum_dy_xhat[d]);
    dbeta[d] = static_cast<float>(sum_dy[d]);
  }
}

}  // namespace s2::numerics
