#pragma once
// Gradient clipping by global L2 norm: PyTorch 1.13's torch.nn.utils.clip_grad_norm_ (norm
// type 2), shared by the compiler's reference interpreter and the simulator's functional model.
//
// Each clipped gradient's sum of squares arrives from a `reduce sumsq` instruction (a pairwise
// tree: reduce.h). The PPU's scalar unit then forms, in f32 with every operation
// rounded, as PyTorch does tensor by tensor:
//   norm_i     = sqrt(sumsq_i)                      torch.norm(g_i)
//   total_norm = sqrt(sum over i in order of norm_i * norm_i)   torch.norm(torch.stack(norms))
//   coef       = (1 / (total_norm + 1e-6)) * max_norm   Python's max_norm / tensor is
//                                                       reciprocal() * max_norm
//   scale      = min(coef, 1)                       torch.clamp(max=1.0); a NaN stays NaN
// and every optimizer instruction multiplies its gradient by `scale` (one rounding) before
// anything else, as g.mul_(clip_coef_clamped) does. A scale of exactly 1 leaves the gradient
// bit for bit unchanged. PyTorch accumulates the sums of squares in its own order; the
// difference is rounding only.
#include <cstddef>

namespace s2::numerics {

struct ClipResult {
  float scale = 1.0f;
  float total_norm = 0.0f;
};

ClipResult clip_scale(const float* sumsq, size_t n, float max_norm);

}  // namespace s2::numerics
