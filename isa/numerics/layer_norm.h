#pragma once
// Layer norm on the PPU (PyTorch's LayerNorm over the last dimension), shared by the compiler's
// reference interpreter and the simulator's functional model. x is viewed as [R, D]: R rows
// (every leading dimension) of D values, each row normalised on its own with the per-column
// affine gamma, beta [D]. Like batch norm (batch_norm.h), every reduction and the
// normalisation run in double, and each result is rounded once to fp32.
//
// Forward, per row, summing in order d = 0..D-1:
//   mean   = sum x / D
//   var    = sum (x - mean)^2 / D              (biased, as PyTorch normalises)
//   invstd = 1 / sqrt(var + eps)
//   y      = (x - mean) * invstd * gamma + beta
// eps is an fp32 value (the instruction's field) widened to double.
//
// Backward, from the saved fp32 statistics, with xhat = (x - mean) * invstd and g = dy * gamma:
//   dx     = invstd * ((g - sum g / D) - xhat * (sum g * xhat) / D)      per row
//   dgamma = sum over rows of dy * xhat;  dbeta = sum over rows of dy   per column, rows in order
#include <cstddef>

namespace s2::numerics {

struct LnGeometry {
  size_t rows = 0, d = 0;  // x [R, D]
};

// Dense row-major arrays: x, y [R, D]; gamma, beta [D]; saved_mean, saved_invstd [R].
void layer_norm_forward(const LnGeometry& g, const float* x, const float* gamma, const float* beta,
                        float eps, float* y, float* saved_mean, float* saved_invstd);

// Outputs are overwritten: dx [R, D], dgamma and dbeta [D].
void layer_norm_backward(const LnGeometry& g, const float* dy, const float* x, const float* gamma,
                         const float* saved_mean, const float* saved_invstd, float* dx,
                         float* dgamma, float* dbeta);

}  // namespace s2::numerics
