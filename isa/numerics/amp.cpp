#include "isa/numerics/amp.h"

#include <cmath>

#include "isa/numerics/fp32.h"

namespace s2::numerics {

bool any_nonfinite(const float* x, size_t n) {
  bool found = false;
  for (size_t i = 0; i < n; ++i)
    found = found || !std::isfinite(x[i]);
  return found;
}

float amp_inv_scale(float scale) {
  return store(load(static_cast<float>(1.0 / static_cast<double>(scale))));
}

void amp_update_scale(const AmpScaleParams& p, bool found_inf, float& scale,
                      int32_t& growth_tracker) {
  if (found_inf) {
    scale = mul(scale, p.backoff_factor);
    growth_tracker = 0;
    return;
  }
  const int64_t successful = int64_t{growth_tracker} + 1;
  if (successful == int64_t{p.growth_interval}) {
    const float grown = mul(scale, p.growth_factor);
    if (std::isfinite(grown)) scale = grown;
    growth_tracker = 0;
  } else {
    growth_tracker = static_cast<int32_t>(successful);
  }
}

}  // namespace s2::numerics
