#include "simulator/functional/conv.h"

#include <algorithm>

#include "simulator/functional/accumulate.h"
#include "simulator/functional/epilogue.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Field;
using isa::Slot;

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
            const int64_t ih = static_cast<int64_t>(pp * g.sh + rr * g.dh) -
                               static_cast<int64_t>(g.pt);
            const bool row_inside = ih >= 0 && ih < h;
            for (size_t qq = 0; qq < g.q; ++qq, ++j) {
              const int64_t iw = static_cast<int64_t>(qq * g.sw + ss * g.dw) -
                                 static_cast<int64_t>(g.pl);
              fn(e, j,
                 row_inside && iw >= 0 && iw < w ? plane[static_cast<size_t>(ih * w + iw)]
                                                 : 0.0f);
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

ConvGeometry conv_geometry(const isa::Instruction& inst, const isa::TensorDesc& input,
                           const isa::TensorDesc& filters, const isa::TensorDesc& output) {
  ConvGeometry g;
  g.n = input.shape[0], g.c = input.shape[1], g.h = input.shape[2], g.w = input.shape[3];
  g.k = filters.shape[0], g.r = filters.shape[2], g.s = filters.shape[3];
  g.p = output.shape[2], g.q = output.shape[3];
  g.sh = inst.u(Field::StrideH), g.sw = inst.u(Field::StrideW);
  g.pt = inst.u(Field::PadTop), g.pl = inst.u(Field::PadLeft);
  g.dh = inst.u(Field::DilationH), g.dw = inst.u(Field::DilationW);
  g.groups = inst.u(Field::Groups);
  return g;
}

size_t images_per_chunk(const ConvGeometry& g) {
  const size_t per_image = std::max<size_t>(1, g.taps() * g.p * g.q);
  return std::clamp<size_t>((size_t{1} << 22) / per_image, 1, std::max<size_t>(g.n, 1));
}

std::vector<float> conv2d_forward(const ConvGeometry& g, const float* x, const float* w,
                                  const float* bias) {
  const size_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q, chunk = images_per_chunk(g);
  std::vector<float> y(g.n * g.k * pq);
  std::vector<float> col, out;
  for (size_t grp = 0; grp < g.groups; ++grp)
    for (size_t n0 = 0; n0 < g.n; n0 += chunk) {
      const size_t nb = std::min(chunk, g.n - n0), cols = nb * pq;
      col.assign(taps * cols, 0.0f);
      for_each_im2col(g, x, grp, n0, nb,
                      [&](size_t e, size_t j, float v) { col[e * cols + j] = v; });
      out.assign(kg * cols, 0.0f);
      accumulate_ktiled(kg, cols, taps, group_filters(g, w, grp), taps, col.data(), cols,
                        out.data(), cols);
      for (size_t kk = 0; kk < kg; ++kk) {
        const size_t ko = grp * kg + kk;
        for (size_t nn = 0; nn < nb; ++nn) {
          const float* src = out.data() + kk * cols + nn * pq;
          float* dst = y.data() + ((n0 + nn) * g.k + ko) * pq;
          if (bias != nullptr)
            for (size_t t = 0; t < pq; ++t)
              dst[t] = src[t] + bias[ko];
          else
            std::copy(src, src + pq, dst);
        }
      }
    }
  return y;
}

std::vector<float> conv2d_backward_data(const ConvGeometry& g, const float* dy, const float* w) {
  const size_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q, cg = g.cg();
  const size_t chunk = images_per_chunk(g);
  const auto h = static_cast<int64_t>(g.h), wd = static_cast<int64_t>(g.w);
  std::vector<float> dx(g.n * g.c * g.h * g.w, 0.0f);
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
      accumulate_ktiled(taps, cols, kg, wt.data(), kg, dyg.data(), cols, dcol.data(), cols);
      // col2im: for a fixed tap each output pixel maps to a distinct input pixel, so every dx
      // element receives its tap contributions in (r, s) row-major order, from +0.0f.
      for (size_t cc = 0; cc < cg; ++cc)
        for (size_t rr = 0; rr < g.r; ++rr)
          for (size_t ss = 0; ss < g.s; ++ss) {
            const float* src = dcol.data() + ((cc * g.r + rr) * g.s + ss) * cols;
            for (size_t nn = 0; nn < nb; ++nn) {
              float* plane = dx.data() + ((n0 + nn) * g.c + grp * cg + cc) * g.h * g.w;
              for (size_t pp = 0; pp < g.p; ++pp) {
                const int64_t ih = static_cast<int64_t>(pp * g.sh + rr * g.dh) -
                                   static_cast<int64_t>(g.pt);
                if (ih < 0 || ih >= h) continue;
                const float* row = src + (nn * g.p + pp) * g.q;
                for (size_t qq = 0; qq < g.q; ++qq) {
                  const int64_t iw = static_cast<int64_t>(qq * g.sw + ss * g.dw) -
                                     static_cast<int64_t>(g.pl);
                  if (iw >= 0 && iw < wd) plane[static_cast<size_t>(ih * wd + iw)] += row[qq];
                }
              }
            }
          }
    }
  }
  return dx;
}

std::vector<float> conv2d_backward_weight(const ConvGeometry& g, const float* x,
                                          const float* dy) {
  const size_t kg = g.kg(), taps = g.taps(), pq = g.p * g.q, chunk = images_per_chunk(g);
  std::vector<float> dw(g.k * taps, 0.0f);
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
      accumulate_ktiled(kg, taps, rows, dyg.data(), rows, colt.data(), taps,
                        dw.data() + grp * kg * taps, taps);
    }
  return dw;
}

void run_conv2d(const isa::Instruction& inst, DramImage& image) {
  Operands ops(inst, image);
  const ConvGeometry g = conv_geometry(inst, ops.desc(Slot::X), ops.desc(Slot::W), ops.desc(Slot::Y));
  const std::vector<float> x = ops.f32(Slot::X), w = ops.f32(Slot::W);
  const auto bias = ops.opt_f32(Slot::Bias);
  const auto residual = ops.opt_f32(Slot::Residual);
  std::vector<float> y = conv2d_forward(g, x.data(), w.data(), data_or_null(bias));
  apply_epilogue(y, data_or_null(residual), inst.as<isa::Activation>(Field::Act), nullptr);
  ops.write(Slot::Y, y);
  if (ops.has(Slot::Stats)) ops.write(Slot::Stats, channel_stats(y, g.n, g.k, g.p * g.q));
}

void run_conv2d_bwd_data(const isa::Instruction& inst, DramImage& image) {
  Operands ops(inst, image);
  const ConvGeometry g =
      conv_geometry(inst, ops.desc(Slot::Dx), ops.desc(Slot::W), ops.desc(Slot::Dy));
  const std::vector<float> dy = ops.f32(Slot::Dy), w = ops.f32(Slot::W);
  const auto residual = ops.opt_f32(Slot::Residual);
  const auto gate = ops.opt_f32(Slot::Gate);
  std::vector<float> dx = conv2d_backward_data(g, dy.data(), w.data());
  apply_epilogue(dx, data_or_null(residual), isa::Activation::None, data_or_null(gate));
  ops.write(Slot::Dx, dx);
}

void run_conv2d_bwd_weight(const isa::Instruction& inst, DramImage& image) {
  Operands ops(inst, image);
  const ConvGeometry g =
      conv_geometry(inst, ops.desc(Slot::X), ops.desc(Slot::Dw), ops.desc(Slot::Dy));
  const std::vector<float> x = ops.f32(Slot::X), dy = ops.f32(Slot::Dy);
  const auto residual = ops.opt_f32(Slot::Residual);
  std::vector<float> dw = conv2d_backward_weight(g, x.data(), dy.data());
  apply_epilogue(dw, data_or_null(residual), isa::Activation::None, nullptr);
  ops.write(Slot::Dw, dw);
}

}  // namespace s2::sim::functional
