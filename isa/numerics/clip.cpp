#include "isa/numerics/clip.h"

#include <cmath>

#include "isa/numerics/fp32.h"

namespace s2::numerics {

ClipResult clip_scale(const float* sumsq, size_t n, float max_norm) {
  float total = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    const float norm = ftz(std::sqrt(load(sumsq[i])));
    total = add(total, mul(norm, norm));
  }
  ClipResult r;
  r.total_norm = ftz(std::sqrt(total));
  const float coef = mul(div(1.0f, add(r.total_norm, 1e-6f)), load(max_norm));
  r.scale = coef > 1.0f ? 1.0f : coef;
  r.total_norm = store(r.total_norm);
  r.scale = store(r.scale);
  return r;
}

}  // namespace s2::numerics
