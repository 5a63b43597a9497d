#pragma once
// Dynamic loss scaling, as PyTorch 1.13's torch.cuda.amp.GradScaler does it, for the PPU's
// scalar unit; shared by the compiler's reference and the simulator's functional model.
//
// A step with loss scale S: the loss gradient is seeded with S (softmax_ce's dloss), so every
// gradient arrives multiplied by S. Then
//   * amp_check, per gradient: a flag, 1 when any element is an inf or a NaN, else 0
//     (torch._amp_foreach_non_finite_check_and_unscale_ checks the scaled values); the flags
//     of all gradients are summed (reduce) into found_inf, nonzero after any overflow;
//   * the optimizer multiplies each gradient by inv_scale = (float)(1 / (double)S) (one
//     rounding, unscale_'s scale.double().reciprocal().float() and g * inv_scale) and, when
//     found_inf is nonzero, updates nothing: GradScaler.step skips optimizer.step;
//   * amp_update adjusts S for the next step (torch._amp_update_scale_), in f32:
//       found_inf:  S = S * backoff_factor, growth_tracker = 0
//       otherwise:  growth_tracker + 1 == growth_interval ? (S = S * growth_factor when that is
//                   finite, growth_tracker = 0) : growth_tracker += 1
//     and gives the next step's inv_scale.
#include <cstddef>
#include <cstdint>

namespace s2::numerics {

struct AmpScaleParams {
  float growth_factor = 2.0f;
  float backoff_factor = 0.5f;
  uint32_t growth_interval = 2000;
};

// Whether any of x[0..n) is an inf or a NaN.
bool any_nonfinite(const float* x, size_t n);

// The factor gradients scaled by `scale` are unscaled by: 1 / scale in double, rounded once.
float amp_inv_scale(float scale);

// torch._amp_update_scale_ on the scale [1] and the growth tracker [1].
void amp_update_scale(const AmpScaleParams& p, bool found_inf, float& scale,
                      int32_t& growth_tracker);

}  // namespace s2::numerics
