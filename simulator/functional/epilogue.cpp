#include "simulator/functional/epilogue.h"

namespace s2::sim::functional {

void apply_epilogue(std::vector<float>& y, const float* residual, isa::Activation act,
                    const float* gate) {
  const size_t n = y.size();
  if (residual != nullptr)
    for (size_t i = 0; i < n; ++i)
      y[i] = y[i] + residual[i];
  switch (act) {
    case isa::Activation::None:
      break;
    case isa::Activation::Relu:
      for (size_t i = 0; i < n; ++i)
        y[i] = y[i] > 0.0f ? y[i] : 0.0f;
      break;
  }
  if (gate != nullptr)
    for (size_t i = 0; i < n; ++i)
      y[i] = gate[i] > 0.0f ? y[i] : 0.0f;
}

std::vector<float> channel_stats(const std::vector<float>& y, size_t outer, size_t channels,
                                 size_t inner) {
  std::vector<float> stats(2 * channels, 0.0f);
  float* sum = stats.data();
  float* sumsq = stats.data() + channels;
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < channels; ++c) {
      const float* v = y.data() + (o * channels + c) * inner;
      for (size_t t = 0; t < inner; ++t) {
        sum[c] += v[t];
        sumsq[c] += v[t] * v[t];
      }
    }
  return stats;
}

}  // namespace s2::sim::functional
