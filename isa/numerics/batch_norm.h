#pragma once
// Training-mode batch norm on the PPU (PyTorch semantics), shared by the compiler's reference
// interpreter and the simulator's functional model. x is viewed as [N, C, S] (S = H*W, 1 for
// a 2-D input); statistics are per channel over its N*S values (count), which must be > 1.
//
// The PPU reduces batch-norm statistics in a wide accumulator: every reduction and the
// normalisation run in double, and each result is rounded once to fp32. (With few values
// per channel — ResNet's 1x1 maps at small batch — fp32 sums lose so much to cancellation
// that the step would drift from the exact result by more than PyTorch's own fp32 step.)
//
// Forward, per channel, summing in order n = 0..N-1, then s = 0..S-1:
//   mean     = sum x / count
//   var      = sum (x - mean)^2 / count;  unbiased = sum (x - mean)^2 / (count - 1)
//   invstd   = 1 / sqrt(var + eps)
//   y        = (x - mean) * invstd * gamma + beta
//   running  = (1 - momentum) * running + momentum * batch   (the unbiased variance)
// With a stats operand ([2, C]: per-channel sum and sum of squares, from a PE epilogue) the
// moments come from it instead: mean = sum / count, var = max(0, sumsq / count - mean^2),
// unbiased = var * count / (count - 1).
// eps and momentum are fp32 values (the instruction's fields) widened to double.
//
// Backward, from the saved fp32 statistics, with xhat = (x - mean) * invstd:
//   dbeta  = sum dy;  dgamma = sum dy * xhat
//   dx     = gamma * invstd * ((dy - dbeta / count) - xhat * (dgamma / count))
// An activation epilogue (relu on y, the gate on dy) is the caller's: it is applied to the
// fp32 y after the forward, and to dy before the backward.
#include <cstddef>

namespace s2::numerics {

struct BnGeometry {
  size_t n = 0, c = 0, s = 1;  // x [N, C, S]

  size_t count() const { return n * s; }
  size_t at(size_t ni, size_t ci) const { return (ni * c + ci) * s; }
};

// Dense row-major arrays; x, y [N, C, S], everything else [C] (stats [2, C]). stats may be
// null (batch statistics from x). running_mean_in/out and running_var_in/out may alias each
// other (an in-place update); a null _out skips that update (its _in is then not read).
struct BnForwardArgs {
  const float* x = nullptr;
  const float* gamma = nullptr;
  const float* beta = nullptr;
  const float* stats = nullptr;
  const float* running_mean_in = nullptr;
  const float* running_var_in = nullptr;
  float eps = 0.0f;
  float momentum = 0.0f;
  float* y = nullptr;
  float* saved_mean = nullptr;
  float* saved_invstd = nullptr;
  float* running_mean_out = nullptr;
  float* running_var_out = nullptr;
};

void batch_norm_forward(const BnGeometry& g, const BnForwardArgs& a);

// dy is the upstream gradient after any gate; outputs are overwritten.
void batch_norm_backward(const BnGeometry& g, const float* dy, const float* x, const float* gamma,
                         const float* saved_mean, const float* saved_invstd, float* dx,
                         float* dgamma, float* dbeta);

}  // namespace s2::numerics
