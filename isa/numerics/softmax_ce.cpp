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

// The rows the mean divides by: those not ignored.
float counted_rows(const int32_t* labels, size_t rows, int32_t ignore_index) {
  size_t n = 0;
  for (size_t r = 0; r < rows; ++r)
    n += labels[r] != ignore_index ? 1 : 0;
  return static_cast<float>(n);
}

}  // namespace

std::optional<size_t> label_outside(const int32_t* labels, size_t rows, size_t classes,
                                    int32_t ignore_index) {
  for (size_t n = 0; n < rows; ++n)
    if (labels[n] != ignore_index && (labels[n] < 0 || static_cast<size_t>(labels[n]) >= classes))
      return n;
  return std::nullopt;
}

float softmax_ce_loss(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                      bool mean, int32_t ignore_index) {
  float total = 0.0f;
  for (size_t n = 0; n < rows; ++n) {
    if (labels[n] == ignore_index) continue;
    const float* row = logits + n * classes;
    const RowStats s = row_stats(row, classes);
    total += std::log(s.sum) - (row[static_cast<size_t>(labels[n])] - s.max);
  }
  if (mean) total /= counted_rows(labels, rows, ignore_index);
  return total;
}

void softmax_ce_grad(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                     bool mean, int32_t ignore_index, const float* dloss, float* dlogits) {
  const float divisor = counted_rows(labels, rows, ignore_index);
  for (size_t n = 0; n < rows; ++n) {
    float* out = dlogits + n * classes;
    if (labels[n] == ignore_index) {
      for (size_t c = 0; c < classes; ++c)
        out[c] = 0.0f;
      continue;
    }
    const float* row = logits + n * classes;
    const auto t = static_cast<size_t>(labels[n]);
    const RowStats s = row_stats(row, classes);
    for (size_t c = 0; c < classes; ++c) {
      float g = std::exp(row[c] - s.max) / s.sum - (c == t ? 1.0f : 0.0f);
      if (mean) g /= divisor;
      if (dloss != nullptr) g *= dloss[0];
      out[c] = g;
    }
  }
}

}  // namespace s2::numerics
