#include "isa/numerics/epilogue.h"

#include <algorithm>

#include "isa/numerics/activation.h"
#include "isa/numerics/lane_ops.h"
#include "isa/numerics/low_precision.h"

namespace s2::numerics {

void apply_epilogue(float* y, size_t n, const float* residual, isa::Activation act,
                    const float* gate, isa::Activation gate_act, isa::DType y_type, float* pre,
                    isa::DType pre_type) {
  if (residual != nullptr)
    for (size_t i = 0; i < n; ++i)
      y[i] = add(y[i], residual[i]);
  if (pre != nullptr)
    for (size_t i = 0; i < n; ++i)
      y[i] = pre[i] = round_to(pre_type, y[i]);
  if (act != isa::Activation::None) act_fwd(act, y, y, n);
  if (gate == nullptr) return;
  if (gate_act == isa::Activation::Relu) {  // act_bwd's relu, without the dispatch
    for (size_t i = 0; i < n; ++i)
      y[i] = relu_bwd(y[i], gate[i]);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    y[i] = gate_stage(gate_act, y_type, y[i], gate[i]);
}

void channel_stats(const float* y, size_t outer, size_t channels, size_t inner, float* stats) {
  float* sum = stats;
  float* sumsq = stats + channels;
  std::fill(stats, stats + 2 * channels, 0.0f);
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < channels; ++c) {
      const float* v = y + (o * channels + c) * inner;
      for (size_t t = 0; t < inner; ++t) {
        sum[c] = add(sum[c], v[t]);
        sumsq[c] = add(sumsq[c], mul(v[t], v[t]));
      }
    }
}

}  // namespace s2::numerics
