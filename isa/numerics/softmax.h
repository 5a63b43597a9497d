#pragma once
// Softmax over the last dimension on the PPU (attention's scores, PyTorch's softmax(dim=-1)),
// shared by the compiler's reference interpreter and the simulator's functional model. x is
// viewed as [R, C]: R rows (every leading dimension) of C values. Like layer norm
// (layer_norm.h), the row's reductions run in double and each result is rounded once to
// fp32, so a long row (a 1024-token attention row) loses nothing to its summation order:
//   z[c]  = fp32(fp32(scale * x[c]) + mask[c])    (the mask term only when a mask is given)
//   m     = max of z[c] over the kept columns      (exact)
//   s     = sum of exp(z[c] - m) over the kept columns, in double, c in increasing order
//   y[c]  = fp32(exp(z[c] - m) / s);  y[c] = 0 for an excluded column
// With causal, row i of each [rows_per_matrix, C] matrix (i its second-to-last index) keeps
// the columns c <= i (torch.tril's lower triangle). A row whose every kept z is -inf (a mask
// of -inf throughout) gives NaN, as PyTorch does.
//
// Backward from the forward output, per row, in double:
//   d     = sum of dy[c] * y[c]                    (c in increasing order)
//   dx[c] = fp32(scale * y[c] * (dy[c] - d))
// Excluded columns have y = 0, so their dx is 0 (an exact zero when scale is finite).
#include <cstddef>

namespace s2::numerics {

struct SoftmaxGeometry {
  size_t rows = 0, cols = 0;   // x [R, C]
  size_t rows_per_matrix = 1;  // the second-to-last dimension (causal's i is r % this)
};

// Dense row-major arrays of R * C values; mask may be null.
void softmax_forward(const SoftmaxGeometry& g, const float* x, const float* mask, float scale,
                     bool causal, float* y);

void softmax_backward(const SoftmaxGeometry& g, const float* dy, const float* y, float scale,
                      float* dx);

}  // namespace s2::numerics
