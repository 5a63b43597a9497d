#include "isa/numerics/softmax.h"

#include <cmath>
#include <limits>

namespace s2::numerics {

void softmax_forward(const SoftmaxGeometry& g, const float* x, const float* mask, float scale,
                     bool causal, float* y) {
  for (size_t r = 0; r < g.rows; ++r) {
    const size_t at = r * g.cols;
    // Columns [0, kept) take part; causal row i keeps c <= i.
    size_t kept = g.cols;
    if (causal) {
      const size_t i = g.rows_per_matrix == 0 ? 0 : r % g.rows_per_matrix;
      kept = i + 1 < g.cols ? i + 1 : g.cols;
    }
    float m = -std::numeric_limits<float>::infinity();  // NaN once any z is NaN
    for (size_t c = 0; c < kept; ++c) {
      float z = scale * x[at + c];
      if (mask != nullptr) z = z + mask[at + c];
      y[at + c] = z;                      // z held in y until the row's max is known
      if (std::isnan(z) || z > m) m = z;  // a NaN stays the max: the row is NaN
    }
    double s = 0.0;
    for (size_t c = 0; c < kept; ++c)
      s += std::exp(static_cast<double>(y[at + c]) - static_cast<double>(m));
    for (size_t c = 0; c < kept; ++c)
      y[at + c] =
          static_cast<float>(std::exp(static_cast<double>(y[at + c]) - static_cast<double>(m)) / s);
    for (size_t c = kept; c < g.cols; ++c)
      y[at + c] = 0.0f;
  }
}

void softmax_backward(const SoftmaxGeometry& g, const float* dy, const float* y, float scale,
                      float* dx) {
  for (size_t r = 0; r < g.rows; ++r) {
    const size_t at = r * g.cols;
    double d = 0.0;
    for (size_t c = 0; c < g.cols; ++c)
      d += static_cast<double>(dy[at + c]) * static_cast<double>(y[at + c]);
    for (size_t c = 0; c < g.cols; ++c)
      dx[at + c] = static_cast<float>(static_cast<double>(scale) * static_cast<double>(y[at + c]) *
                                      (static_cast<double>(dy[at + c]) - d));
  }
}

}  // namespace s2::numerics
