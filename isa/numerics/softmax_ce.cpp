#include "isa/numerics/softmax_ce.h"

#include <cmath>

namespace s2::numerics {
namespace {

struct RowStats {
  float max;
  float sum;  // of exp(x - max)
};

RowStats row_stats(const float* row, size_t classes) {
  float max = row[0];
  for (size_t c = 1; c < classes; ++c)
    max = row[c] > max ? row[c] : max;
  float sum = 0.0f;
  for (size_t c = 0; c < classes; ++c)
    sum += std::exp(row[c] - max);
  return {max, sum};
}

}  // namespace

float softmax_ce_loss(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                      bool mean) {
  float total = 0.0f;
  for (size_t n = 0; n < rows; ++n) {
    const float* row = logits + n * classes;
    const RowStats s = row_stats(row, classes);
    total += std::log(s.sum) - (row[static_cast<size_t>(labels[n])] - s.max);
  }
  if (mean) total /= static_cast<float>(rows);
  return total;
}

void softmax_ce_grad(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                     bool mean, const float* dloss, float* dlogits) {
  const auto divisor = static_cast<float>(rows);
  for (size_t n = 0; n < rows; ++n) {
    const float* row = logits + n * classes;
    const auto t = static_cast<size_t>(labels[n]);
    const RowStats s = row_stats(row, classes);
    for (size_t c = 0; c < classes; ++c) {
      float g = std::exp(row[c] - s.max) / s.sum - (c == t ? 1.0f : 0.0f);
      if (mean) g /= divisor;
      if (dloss != nullptr) g *= dloss[0];
      dlogits[n * classes + c] = g;
    }
  }
}

}  // namespace s2::numerics
