#include "isa/numerics/conv.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "isa/numerics/fp32.h"

namespace s2::numerics {
namespace {

// Calls fn(e, j, value) for every im2col element of group grp over images [n0, n0 + nb): the
// input under tap e at output pixel j (counted from image n0), or +0.0f in the padding.
template <typename Fn>
void for_each_im2col(const ConvGeometry& g, const float* x, size_t grp, size_t n0, size_t nb,
                     Fn fn) {
  size_t e = 0;
  const auto h = static_cast<int64_t>(g.h), w = static_cast<int64_t>(g.w);
  for (size_t cc = 0; cc < g.cg(); ++cc)
    for (size_t rr = 0; rr < g.r; ++rr)
      for (size_t ss = 0; ss < g.s; ++ss, ++e) {
        size_t j = 0;
        for (size_t nn = 0; nn < nb; ++nn) {
          const float* plane = x + ((n0 + nn) * g.c + grp * g.cg() + cc) * g.h * g.w;
          for (size_t pp = 0; pp < g.p; ++pp) {
            const int64_t ih =
                static_cast<int64_t>(pp * g.sh + rr * g.dh) - static_cast<int64_t>(g.pt);
            const bool row_inside = ih >= 0 && ih < h;
            for (size_t qq = 0; qq < g.q; ++qq, ++j) {
              const int64_t iw =
                  static_cast<int64_t>(qq * g.sw + ss * g.dw) - static_cast<int64_t>(g.pl);
              fn(e, j,
                 row_inside && iw >= 0 && iw < w ? plane[static_cast<size_t>(ih * w + iw)] : 0.0f);
            }
          }
        }
      }
}

// The [K] output channels of the group's filters, as a [kg][taps] matrix view.
const float* group_filters(const ConvGeometry& g, const float* w, size_t grp) {
  return w + grp * g.kg() * g.taps();
}

}  // namespace

size_t images_per_chunk(const ConvGeometry& g) {
  const size_t per_image = std::max<size_t>(1, g.taps() * g.p * g.q);
  return std::clamp<size_t>((size_t{1} << 22) / per_image, 1, std::max<size_t>(g.n, 1));
}

void conv2d_forward(const ConvGeometry& g, const float* x, const float* w, const float* bias,
                    float* y, PeGemm& pe) {
  const size_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q, chunk = images_per_chunk(g);
  std::vector<float> col, out;
  for (size_t grp = 0; grp < g.groups; ++grp)
    for (size_t n0 = 0; n0 < g.n; n0 += chunk) {
      const size_t nb = std::min(chunk, g.n - n0), cols = nb * pq;
      col.assign(taps * cols, 0.0f);
      for_each_im2col(g, x, grp, n0, nb,
                      [&](size_t e, size_t j, float v) { col[e * cols + j] = v; });
      out.assign(kg * cols, 0.0f);
      pe.accumulate(kg, cols, taps, group_filters(g, w, grp), taps, col.data(), cols, out.data(),
                    cols);
      for (size_t kk = 0; kk < kg; ++kk) {
        const size_t ko = grp * kg + kk;
        for (size_t nn = 0; nn < nb; ++nn) {
          const float* src = out.data() + kk * cols + nn * pq;
          float* dst = y + ((n0 + nn) * g.k + ko) * pq;
          if (bias != nullptr)
            for (size_t t = 0; t < pq; ++t)
              dst[t] = add(src[t], bias[ko]);
          else
            std::copy(src, src + pq, dst);
        }
      }
    }
}

void conv2d_backward_data(const ConvGeometry& g, const float* dy, const float* w, float* dx,
                          PeGemm& pe) {
  const size_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q, cg = g.cg();
  const size_t chunk = images_per_chunk(g);
  const auto h = static_cast<int64_t>(g.h), wd = static_cast<int64_t>(g.w);
  std::fill(dx, dx + g.n * g.c * g.h * g.w, 0.0f);
  std::vector<float> wt(taps * kg), dyg, dcol;
  for (size_t grp = 0; grp < g.groups; ++grp) {
    const float* wg = group_filters(g, w, grp);
    for (size_t e = 0; e < taps; ++e)  // w_g transposed: [taps][kg]
      for (size_t kk = 0; kk < kg; ++kk)
        wt[e * kg + kk] = wg[kk * taps + e];
    for (size_t n0 = 0; n0 < g.n; n0 += chunk) {
      const size_t nb = std::min(chunk, g.n - n0), cols = nb * pq;
      dyg.resize(kg * cols);
      for (size_t kk = 0; kk < kg; ++kk)
        for (size_t nn = 0; nn < nb; ++nn) {
          const float* src = dy + ((n0 + nn) * g.k + grp * kg + kk) * pq;
          std::copy(src, src + pq, dyg.data() + kk * cols + nn * pq);
        }
      dcol.assign(taps * cols, 0.0f);
      pe.accumulate(taps, cols, kg, wt.data(), kg, dyg.data(), cols, dcol.data(), cols);
      // col2im: for a fixed tap each output pixel maps to a distinct input pixel, so every dx
      // element receives its tap contributions in (r, s) row-major order, from +0.0f.
      for (size_t cc = 0; cc < cg; ++cc)
        for (size_t rr = 0; rr < g.r; ++rr)
          for (size_t ss = 0; ss < g.s; ++ss) {
            const float* src = dcol.data() + ((cc * g.r + rr) * g.s + ss) * cols;
            for (size_t nn = 0; nn < nb; ++nn) {
              float* plane = dx + ((n0 + nn) * g.c + grp * cg + cc) * g.h * g.w;
              for (size_t pp = 0; pp < g.p; ++pp) {
                const int64_t ih =
                    static_cast<int64_t>(pp * g.sh + rr * g.dh) - static_cast<int64_t>(g.pt);
                if (ih < 0 || ih >= h) continue;
                const float* row = src + (nn * g.p + pp) * g.q;
                for (size_t qq = 0; qq < g.q; ++qq) {
                  const int64_t iw =
                      static_cast<int64_t>(qq * g.sw + ss * g.dw) - static_cast<int64_t>(g.pl);
                  if (iw < 0 || iw >= wd) continue;
                  float& v = plane[static_cast<size_t>(ih * wd + iw)];
                  v = add(v, row[qq]);
                }
              }
            }
          }
    }
  }
}

void conv2d_backward_weight(const ConvGeometry& g, const float* x, const float* dy, float* dw,
                            PeGemm& pe) {
  const size_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q, chunk = images_per_chunk(g);
  std::fill(dw, dw + g.k * taps, 0.0f);
  std::vector<float> dyg, colt;
  for (size_t grp = 0; grp < g.groups; ++grp)
    for (size_t n0 = 0; n0 < g.n; n0 += chunk) {
      const size_t nb = std::min(chunk, g.n - n0), rows = nb * pq;
      dyg.resize(kg * rows);
      for (size_t kk = 0; kk < kg; ++kk)
        for (size_t nn = 0; nn < nb; ++nn) {
          const float* src = dy + ((n0 + nn) * g.k + grp * kg + kk) * pq;
          std::copy(src, src + pq, dyg.data() + kk * rows + nn * pq);
        }
      colt.assign(rows * taps, 0.0f);  // im2col transposed: [pixels][taps]
      for_each_im2col(g, x, grp, n0, nb,
                      [&](size_t e, size_t j, float v) { colt[j * taps + e] = v; });
      // Accumulates onto dw: each chunk continues the running sum with fresh K-tiles.
      pe.accumulate(kg, taps, rows, dyg.data(), rows, colt.data(), taps, dw + grp * kg * taps,
                    taps);
    }
}

}  // namespace s2::numerics
