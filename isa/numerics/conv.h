#pragma once
// The convolution family on the PE array — conv2d, conv2d_bwd_data, conv2d_bwd_weight — each a
// GEMM over an im2col view of the input, one channel group at a time, on a PeGemm (pe_gemm.h):
//   forward      y_g[k][j]  = sum_e w_g[k][e] * col[e][j]     (+ bias[k] after the sum)
//   bwd_data     dcol[e][j] = sum_k w_g[k][e] * dy_g[k][j],    then col2im into dx
//   bwd_weight   dw_g[k][e] = sum_j dy_g[k][j] * col[e][j]
// with e = (c*R + r)*S + s a filter tap of the group and j = (n*P + p)*Q + q an output pixel.
// Padding taps are real +0.0f operands of the sum (they can change the sign of a zero result,
// so they are not skipped). col2im adds each dx element's tap contributions from +0.0f in
// (r, s) row-major order; every add is numerics::add.
//
// Images are processed in chunks of images_per_chunk() (about 4M im2col floats). For the
// forward and bwd_data the reduction does not cross images, so chunks change nothing; for
// bwd_weight the reduction runs over all pixels of the batch, and each chunk's K-tiles restart
// at the chunk boundary, so the chunk size is part of the numerics.
//
// The compiler's reference interpreter and the simulator's functional model both call these,
// so the two agree bit for bit when given equal PeGemm models.
#include <cstddef>

#include "isa/numerics/pe_gemm.h"

namespace s2::numerics {

struct ConvGeometry {
  size_t n = 0, c = 0, h = 0, w = 0;  // input x [N, C, H, W]
  size_t k = 0, r = 0, s = 0;         // filters w [K, C/groups, R, S]
  size_t p = 0, q = 0;                // output y [N, K, P, Q]
  size_t sh = 1, sw = 1, pt = 0, pl = 0, dh = 1, dw = 1, groups = 1;

  size_t cg() const { return c / groups; }
  size_t kg() const { return k / groups; }
  size_t taps() const { return cg() * r * s; }
};

// Images per im2col chunk: max(1, min(N, 2^22 / max(1, taps*P*Q))).
size_t images_per_chunk(const ConvGeometry& g);

// Dense row-major arrays; bias may be null. Outputs are overwritten.
void conv2d_forward(const ConvGeometry& g, const float* x, const float* w, const float* bias,
                    float* y, PeGemm& pe);
void conv2d_backward_data(const ConvGeometry& g, const float* dy, const float* w, float* dx,
                          PeGemm& pe);
void conv2d_backward_weight(const ConvGeometry& g, const float* x, const float* dy, float* dw,
                            PeGemm& pe);

}  // namespace s2::numerics
