#pragma once
// Reference-interpreter kernels of the convolution family (conv2d, conv2d_bwd_data,
// conv2d_bwd_weight), private to ops/conv.cpp.
//
// Each kernel is a GEMM over an im2col view of the input, one group at a time:
//   forward      y_g[k][j]    = sum_e  w_g[k][e]  * col[e][j]
//   bwd_data     dcol[e][j]   = sum_k  w_g[k][e]  * dy_g[k][j],  then col2im into dx
//   bwd_weight   dw_g[k][e]   = sum_j  dy_g[k][j] * col[e][j]
// with e = (c*R + r)*S + s a filter tap of the group (c < C/groups) and j = (n*P + p)*Q + q an
// output pixel. Taps that fall into the padding read as exact zeros, so they never change a sum.
//
// Accumulation order (fp32, each product and each sum rounded, no fused multiply-add):
//   forward     y = (((0 + t_0) + t_1) + ... + t_{E-1}) + bias, taps e ascending;
//   bwd_data    per tap (r,s): partial = ((0 + k=0 term) + k=1 term) + ..., output channels k
//               ascending; dx = ((0 + partial_(0,0)) + partial_(0,1)) + ..., taps row-major;
//   bwd_weight  dw = ((0 + j=0 term) + j=1 term) + ..., output pixels j = (n, p, q) ascending,
//               over the whole batch.
// The GEMM is register-blocked (kMr x kNr tiles over packed panels) so its innermost loop is
// contiguous and vectorises without reassociation; the blocking never changes the order above.
// The PPU epilogue (residual, act, gate) is not part of these kernels: ops/conv.cpp applies it
// element-wise to their finished result (ops/epilogue.h), as the separate ops would.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace s2::ir::conv_kernels {

struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input x [N, C, H, W]
  int64_t k = 0, r = 0, s = 0;         // filters w [K, C/groups, R, S]
  int64_t p = 0, q = 0;                // output y [N, K, P, Q]
  int64_t sh = 1, sw = 1, pt = 0, pl = 0, dh = 1, dw = 1, groups = 1;

  int64_t cg() const { return c / groups; }
  int64_t kg() const { return k / groups; }
  int64_t taps() const { return cg() * r * s; }  // E: the GEMM's tap dimension per group
};

inline constexpr int64_t kMr = 4;  // rows of a register tile
inline constexpr int64_t kNr = 8;  // columns of a register tile

// Packs rows [0, m) x reduction [0, kd) of A, read through a(i, e), into panels of kMr rows:
// panel[ip][e][ii]; rows past m are zero.
template <typename Fn>
std::vector<float> pack_a(int64_t m, int64_t kd, Fn a) {
  const int64_t panels = (m + kMr - 1) / kMr;
  std::vector<float> out(static_cast<size_t>(panels * kd * kMr), 0.0f);
  float* o = out.data();
  for (int64_t ip = 0; ip < panels; ++ip)
    for (int64_t e = 0; e < kd; ++e)
      for (int64_t ii = 0; ii < kMr; ++ii, ++o)
        if (ip * kMr + ii < m) *o = a(ip * kMr + ii, e);
  return out;
}

// Reduction steps summed per partial sum before it joins the accumulator.
inline constexpr int64_t kKTile = 32;

// Packs reduction [0, kd) x columns [0, n) of B, read through b(e, j), into panels of kNr
// columns: panel[jp][e][jj]; columns past n are zero.
template <typename Fn>
std::vector<float> pack_b(int64_t kd, int64_t n, Fn b) {
  const int64_t panels = (n + kNr - 1) / kNr;
  std::vector<float> out(static_cast<size_t>(panels * kd * kNr), 0.0f);
  for (int64_t jp = 0; jp < panels; ++jp) {
    const int64_t width = std::min(kNr, n - jp * kNr);
    float* o = out.data() + jp * kd * kNr;
    for (int64_t e = 0; e < kd; ++e, o += kNr)
      for (int64_t jj = 0; jj < width; ++jj)
        o[jj] = b(e, jp * kNr + jj);
  }
  return out;
}

// c[i][j] (row stride ldc) += sum over e of A[i][e] * B[e][j], in K-tiles the way the PE array
// accumulates: each tile of kKTile reduction steps is summed from zero in ascending e
// (tile = tile + a*b), then added to the running value (acc = c; acc = acc + tile per tile in
// order; c = acc). Blocking bounds the rounding error by ~(kKTile + kd/kKTile) ulps instead
// of ~kd.
inline void gemm_packed(int64_t m, int64_t n, int64_t kd, const float* ap, const float* bp,
                        float* c, int64_t ldc) {
  for (int64_t j0 = 0; j0 < n; j0 += kNr) {
    const int64_t width = std::min(kNr, n - j0);
    const float* bpanel = bp + (j0 / kNr) * kd * kNr;
    for (int64_t i0 = 0; i0 < m; i0 += kMr) {
      const int64_t height = std::min(kMr, m - i0);
      float acc[kMr][kNr] = {};
      for (int64_t ii = 0; ii < height; ++ii)
        for (int64_t jj = 0; jj < width; ++jj)
          acc[ii][jj] = c[(i0 + ii) * ldc + j0 + jj];
      const float* a = ap + (i0 / kMr) * kd * kMr;
      const float* b = bpanel;
      for (int64_t e0 = 0; e0 < kd; e0 += kKTile) {
        float tile[kMr][kNr] = {};
        const int64_t e1 = std::min(kd, e0 + kKTile);
        for (int64_t e = e0; e < e1; ++e, a += kMr, b += kNr)
          for (int64_t ii = 0; ii < kMr; ++ii) {
            const float av = a[ii];
            for (int64_t jj = 0; jj < kNr; ++jj)
              tile[ii][jj] += av * b[jj];
          }
        for (int64_t ii = 0; ii < kMr; ++ii)
          for (int64_t jj = 0; jj < kNr; ++jj)
            acc[ii][jj] += tile[ii][jj];
      }
      for (int64_t ii = 0; ii < height; ++ii)
        for (int64_t jj = 0; jj < width; ++jj)
          c[(i0 + ii) * ldc + j0 + jj] = acc[ii][jj];
    }
  }
}

// Images per GEMM, so that one im2col panel set stays around 4M floats (at least one image).
inline int64_t images_per_chunk(const ConvGeometry& g) {
  const int64_t per_image = std::max<int64_t>(1, g.taps() * g.p * g.q);
  return std::clamp<int64_t>((int64_t{1} << 22) / per_image, 1, g.n);
}

// Calls fn(e, j, value) for every im2col element of group grp over images [n0, n0 + nb): the
// input value under tap e at output pixel j (counted from image n0), or 0 in the padding.
// Taps outer, pixels inner, so each tap's geometry is worked out once.
template <typename Fn>
void for_each_im2col(const ConvGeometry& g, const float* x, int64_t grp, int64_t n0, int64_t nb,
                     Fn fn) {
  int64_t e = 0;
  for (int64_t cc = 0; cc < g.cg(); ++cc)
    for (int64_t rr = 0; rr < g.r; ++rr)
      for (int64_t ss = 0; ss < g.s; ++ss, ++e) {
        int64_t j = 0;
        for (int64_t nn = 0; nn < nb; ++nn) {
          const float* plane = x + ((n0 + nn) * g.c + grp * g.cg() + cc) * g.h * g.w;
          for (int64_t pp = 0; pp < g.p; ++pp) {
            const int64_t ih = pp * g.sh - g.pt + rr * g.dh;
            const bool row_inside = ih >= 0 && ih < g.h;
            for (int64_t qq = 0; qq < g.q; ++qq, ++j) {
              const int64_t iw = qq * g.sw - g.pl + ss * g.dw;
              fn(e, j, row_inside && iw >= 0 && iw < g.w ? plane[ih * g.w + iw] : 0.0f);
            }
          }
        }
      }
}

// y [N,K,P,Q] = conv(x [N,C,H,W], w [K,C/groups,R,S]) + bias [K] (bias may be null).
inline void conv2d_forward(const ConvGeometry& g, const float* x, const float* w, const float* bias,
                           float* y) {
  const int64_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q;
  const int64_t chunk = images_per_chunk(g);
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    const float* wg = w + grp * kg * taps;
    const std::vector<float> ap =
        pack_a(kg, taps, [&](int64_t i, int64_t e) { return wg[i * taps + e]; });
    for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.n - n0), cols = nb * pq;
      // B = im2col [taps][cols], packed straight into kNr-column panels.
      std::vector<float> bp(static_cast<size_t>((cols + kNr - 1) / kNr * taps * kNr), 0.0f);
      for_each_im2col(g, x, grp, n0, nb, [&](int64_t e, int64_t j, float v) {
        bp[static_cast<size_t>(((j / kNr) * taps + e) * kNr + j % kNr)] = v;
      });
      std::vector<float> out(static_cast<size_t>(kg * cols), 0.0f);
      gemm_packed(kg, cols, taps, ap.data(), bp.data(), out.data(), cols);
      for (int64_t kk = 0; kk < kg; ++kk) {
        const int64_t ko = grp * kg + kk;
        const float b = bias ? bias[ko] : 0.0f;
        for (int64_t nn = 0; nn < nb; ++nn) {
          const float* src = out.data() + kk * cols + nn * pq;
          float* dst = y + ((n0 + nn) * g.k + ko) * pq;
          for (int64_t t = 0; t < pq; ++t)
            dst[t] = bias ? src[t] + b : src[t];
        }
      }
    }
  }
}

// dx [N,C,H,W] = the gradient of conv2d with respect to x, from dy [N,K,P,Q] and w.
inline void conv2d_backward_data(const ConvGeometry& g, const float* dy, const float* w,
                                 float* dx) {
  const int64_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q, cg = g.cg();
  const int64_t chunk = images_per_chunk(g);
  std::fill(dx, dx + g.n * g.c * g.h * g.w, 0.0f);
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    const float* wg = w + grp * kg * taps;
    const std::vector<float> ap =
        pack_a(taps, kg, [&](int64_t e, int64_t kk) { return wg[kk * taps + e]; });
    for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.n - n0), cols = nb * pq;
      const std::vector<float> bp = pack_b(kg, cols, [&](int64_t kk, int64_t j) {
        return dy[((n0 + j / pq) * g.k + grp * kg + kk) * pq + j % pq];
      });
      std::vector<float> dcol(static_cast<size_t>(taps * cols), 0.0f);
      gemm_packed(taps, cols, kg, ap.data(), bp.data(), dcol.data(), cols);
      // col2im: for a fixed tap (r, s) each output pixel maps to a distinct input pixel, so
      // every dx element receives its tap contributions in (r, s) row-major order.
      for (int64_t cc = 0; cc < cg; ++cc)
        for (int64_t rr = 0; rr < g.r; ++rr)
          for (int64_t ss = 0; ss < g.s; ++ss) {
            const float* src = dcol.data() + ((cc * g.r + rr) * g.s + ss) * cols;
            for (int64_t nn = 0; nn < nb; ++nn) {
              float* plane = dx + ((n0 + nn) * g.c + grp * cg + cc) * g.h * g.w;
              for (int64_t pp = 0; pp < g.p; ++pp) {
                const int64_t ih = pp * g.sh - g.pt + rr * g.dh;
                if (ih < 0 || ih >= g.h) continue;
                const float* row = src + (nn * g.p + pp) * g.q;
                for (int64_t qq = 0; qq < g.q; ++qq) {
                  const int64_t iw = qq * g.sw - g.pl + ss * g.dw;
                  if (iw >= 0 && iw < g.w) plane[ih * g.w + iw] += row[qq];
                }
              }
            }
          }
    }
  }
}

// dw [K,C/groups,R,S] = the gradient of conv2d with respect to w, from x and dy [N,K,P,Q].
inline void conv2d_backward_weight(const ConvGeometry& g, const float* x, const float* dy,
                                   float* dw) {
  const int64_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q;
  const int64_t chunk = images_per_chunk(g);
  std::fill(dw, dw + g.k * taps, 0.0f);
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.n - n0), rows = nb * pq;
      const std::vector<float> ap = pack_a(kg, rows, [&](int64_t kk, int64_t j) {
        return dy[((n0 + j / pq) * g.k + grp * kg + kk) * pq + j % pq];
      });
      // B = im2col transposed [rows][taps], packed straight into kNr-column panels.
      std::vector<float> bp(static_cast<size_t>((taps + kNr - 1) / kNr * rows * kNr), 0.0f);
      for_each_im2col(g, x, grp, n0, nb, [&](int64_t e, int64_t j, float v) {
        bp[static_cast<size_t>(((e / kNr) * rows + j) * kNr + e % kNr)] = v;
      });
      // Accumulates onto dw, so chunks continue the j-ascending sum of the previous ones.
      gemm_packed(kg, taps, rows, ap.data(), bp.data(), dw + grp * kg * taps, taps);
    }
  }
}

}  // namespace s2::ir::conv_kernels
