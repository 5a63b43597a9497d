#include "simulator/timing/gemm_view.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "isa/common/errors.h"

namespace s2::sim::timing {
namespace {

using isa::Field;
using isa::Opcode;
using isa::Slot;

using Conv = ConvShape;

Conv conv_of(const isa::Instruction& inst, Slot x_slot, Slot w_slot, Slot y_slot) {
  const auto& x = inst.get(x_slot);
  const auto& w = inst.get(w_slot);
  const auto& y = inst.get(y_slot);
  auto i = [](uint32_t v) { return static_cast<int64_t>(v); };
  return {x.shape[0],
          x.shape[1],
          x.shape[2],
          x.shape[3],
          w.shape[0],
          w.shape[2],
          w.shape[3],
          y.shape[2],
          y.shape[3],
          inst.u(Field::Groups),
          i(inst.u(Field::StrideH)),
          i(inst.u(Field::StrideW)),
          i(inst.u(Field::PadTop)),
          i(inst.u(Field::PadLeft)),
          i(inst.u(Field::DilationH)),
          i(inst.u(Field::DilationW))};
}

Conv conv_of(const isa::Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::Conv2d:
      return conv_of(inst, Slot::X, Slot::W, Slot::Y);
    case Opcode::Conv2dBwdData:
      return conv_of(inst, Slot::Dx, Slot::W, Slot::Dy);
    default:
      return conv_of(inst, Slot::X, Slot::Dw, Slot::Dy);
  }
}

uint64_t taps(uint64_t kernel, int64_t stride, int64_t dilation) {
  const auto step = static_cast<uint64_t>(stride / std::gcd(stride, dilation));
  return (kernel + step - 1) / step;
}

int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Clipped half-open range [lo, hi) of [0, extent).
void clip(int64_t lo, int64_t hi, uint64_t extent, uint64_t& out_lo, uint64_t& out_hi) {
  const auto e = static_cast<int64_t>(extent);
  lo = std::clamp<int64_t>(lo, 0, e);
  hi = std::clamp<int64_t>(hi, 0, e);
  out_lo = static_cast<uint64_t>(lo);
  out_hi = static_cast<uint64_t>(std::max(lo, hi));
}

// Input rows read by output rows [o0, o1) through taps [t0, t1): o*stride + t*dil - pad,
// widened so that each output row reads at least its whole stride period (the rows up to the
// next window's start). A strided sweep thus moves whole row ranges rather than every other
// row: DRAM bursts run along rows, and a 1x1 stride-2 window would otherwise leave holes
// whose saving the row-granular DMA could not realise anyway.
void input_span(uint64_t o0, uint64_t o1, uint64_t t0, uint64_t t1, int64_t stride, int64_t dil,
                int64_t pad, uint64_t extent, uint64_t& lo, uint64_t& hi) {
  const auto s = [](uint64_t v) { return static_cast<int64_t>(v); };
  const int64_t reach = std::max((s(t1) - 1) * dil + 1, s(t0) * dil + stride);
  clip(s(o0) * stride + s(t0) * dil - pad, (s(o1) - 1) * stride + reach - pad, extent, lo, hi);
}

// Forward output rows that any tap of a kernel of `kernel` taps maps onto input rows [i0, i1).
void output_span(uint64_t i0, uint64_t i1, uint64_t kernel, int64_t stride, int64_t dil,
                 int64_t pad, uint64_t extent, uint64_t& lo, uint64_t& hi) {
  const auto s = [](uint64_t v) { return static_cast<int64_t>(v); };
  const int64_t first = s(i0) + pad - (s(kernel) - 1) * dil;  // smallest o*stride
  const int64_t last = s(i1) - 1 + pad;                       // largest o*stride
  clip(-floor_div(-first, stride), floor_div(last, stride) + 1, extent, lo, hi);
}

Box box4(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1, uint64_t c0, uint64_t c1, uint64_t d0,
         uint64_t d1) {
  Box b;
  b.lo = {a0, b0, c0, d0};
  b.hi = {a1, b1, c1, d1};
  return b;
}

Box conv_box(const GemmView& view, const isa::Instruction& inst, Slot slot, uint64_t g,
             const Range3& m, const Range3& n, const Range3& k) {
  const Conv& cv = view.conv;
  const uint64_t nc0 = n.lo[2], nc1 = n.hi[2];
  uint64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;
  switch (inst.opcode()) {
    case Opcode::Conv2d:  // M = (n, p, q), K = (c, r, s)
      switch (slot) {
        case Slot::X:
          input_span(m.lo[1], m.hi[1], k.lo[1], k.hi[1], cv.sh, cv.dh, cv.pt, cv.h, h0, h1);
          input_span(m.lo[2], m.hi[2], k.lo[2], k.hi[2], cv.sw, cv.dw, cv.pl, cv.w, w0, w1);
          return box4(m.lo[0], m.hi[0], g * cv.cg() + k.lo[0], g * cv.cg() + k.hi[0], h0, h1, w0,
                      w1);
        case Slot::W:
          return box4(g * cv.kg() + nc0, g * cv.kg() + nc1, k.lo[0], k.hi[0], k.lo[1], k.hi[1],
                      k.lo[2], k.hi[2]);
        default:  // y, pre, residual: [N, K, P, Q]
          return box4(m.lo[0], m.hi[0], g * cv.kg() + nc0, g * cv.kg() + nc1, m.lo[1], m.hi[1],
                      m.lo[2], m.hi[2]);
      }
    case Opcode::Conv2dBwdData:  // M = (n, h, w), K = (k, taps_h, taps_w)
      switch (slot) {
        case Slot::Dy:
          output_span(m.lo[1], m.hi[1], cv.r, cv.sh, cv.dh, cv.pt, cv.p, h0, h1);
          output_span(m.lo[2], m.hi[2], cv.s, cv.sw, cv.dw, cv.pl, cv.q, w0, w1);
          return box4(m.lo[0], m.hi[0], g * cv.kg() + k.lo[0], g * cv.kg() + k.hi[0], h0, h1, w0,
                      w1);
        case Slot::W:  // all taps: which ones reach a pixel depends on the pixel's phase
          return box4(g * cv.kg() + k.lo[0], g * cv.kg() + k.hi[0], nc0, nc1, 0, cv.r, 0, cv.s);
        default:  // dx, residual, gate: [N, C, H, W]
          return box4(m.lo[0], m.hi[0], g * cv.cg() + nc0, g * cv.cg() + nc1, m.lo[1], m.hi[1],
                      m.lo[2], m.hi[2]);
      }
    default:  // bwd_weight: M = (c, r, s), K = (n, p, q)
      switch (slot) {
        case Slot::X:
          input_span(k.lo[1], k.hi[1], m.lo[1], m.hi[1], cv.sh, cv.dh, cv.pt, cv.h, h0, h1);
          input_span(k.lo[2], k.hi[2], m.lo[2], m.hi[2], cv.sw, cv.dw, cv.pl, cv.w, w0, w1);
          return box4(k.lo[0], k.hi[0], g * cv.cg() + m.lo[0], g * cv.cg() + m.hi[0], h0, h1, w0,
                      w1);
        case Slot::Dy:
          return box4(k.lo[0], k.hi[0], g * cv.kg() + nc0, g * cv.kg() + nc1, k.lo[1], k.hi[1],
                      k.lo[2], k.hi[2]);
        default:  // dw, residual: [K, C/g, R, S]
          return box4(g * cv.kg() + nc0, g * cv.kg() + nc1, m.lo[0], m.hi[0], m.lo[1], m.hi[1],
                      m.lo[2], m.hi[2]);
      }
  }
}

// gemm: the rows and columns of a 2-D operand; bmm: the same matrix box after the batch index
// of group g (one index per batch dimension, so the box covers one matrix).
Box gemm_box(const GemmView& view, Slot slot, uint64_t g, const Range3& m, const Range3& n,
             const Range3& k) {
  const bool ta = view.trans_a, tb = view.trans_b;
  Box b;
  auto set2 = [&b, &view, g](uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1) {
    switch (view.batch_rank) {
      case 0:
        b.lo = {r0, c0, 0, 0};
        b.hi = {r1, c1, 0, 0};
        break;
      case 1:
        b.lo = {g, r0, c0, 0};
        b.hi = {g + 1, r1, c1, 0};
        break;
      default: {
        const uint64_t b0 = g / view.batch_inner, b1 = g % view.batch_inner;
        b.lo = {b0, b1, r0, c0};
        b.hi = {b0 + 1, b1 + 1, r1, c1};
        break;
      }
    }
  };
  const uint64_t m0 = m.lo[2], m1 = m.hi[2], n0 = n.lo[2], n1 = n.hi[2], k0 = k.lo[2], k1 = k.hi[2];
  switch (slot) {
    case Slot::A:
      ta ? set2(k0, k1, m0, m1) : set2(m0, m1, k0, k1);
      break;
    case Slot::B:
      tb ? set2(n0, n1, k0, k1) : set2(k0, k1, n0, n1);
      break;
    default:
      set2(m0, m1, n0, n1);
      break;  // y, pre, residual, gate
  }
  return b;
}

}  // namespace

GemmView gemm_view(const isa::Instruction& inst) {
  GemmView v;
  auto add = [&](Slot slot, GemmRole role) {
    if (inst.operand(slot)) v.operands.push_back({slot, role});
  };
  switch (inst.opcode()) {
    case Opcode::Gemm: {
      const auto& a = inst.get(Slot::A);
      const auto& b = inst.get(Slot::B);
      const bool ta = inst.flag(Field::TransA), tb = inst.flag(Field::TransB);
      v.trans_a = ta;
      v.trans_b = tb;
      v.m = {1, 1, ta ? a.shape[1] : a.shape[0]};
      v.k = {1, 1, ta ? a.shape[0] : a.shape[1]};
      v.n = {1, 1, tb ? b.shape[0] : b.shape[1]};
      v.macs = GemmView::size(v.m) * GemmView::size(v.n) * GemmView::size(v.k);
      add(Slot::A, GemmRole::Streamed);
      add(Slot::B, GemmRole::Stationary);
      add(Slot::Bias, GemmRole::PerColumn);
      add(Slot::Residual, GemmRole::PerPixel);
      add(Slot::Gate, GemmRole::PerPixel);
      add(Slot::Y, GemmRole::Out);
      add(Slot::Pre, GemmRole::Out);
      add(Slot::Stats, GemmRole::Stats);
      return v;
    }
    case Opcode::Bmm: {
      const auto& a = inst.get(Slot::A);
      const auto& b = inst.get(Slot::B);
      const unsigned r = a.rank;
      const bool ta = inst.flag(Field::TransA), tb = inst.flag(Field::TransB);
      v.trans_a = ta;
      v.trans_b = tb;
      v.batch_rank = r - 2;
      v.batch_inner = r == 4 ? a.shape[1] : 1;
      v.groups = r == 4 ? uint64_t{a.shape[0]} * a.shape[1] : a.shape[0];
      v.m = {1, 1, ta ? a.shape[r - 1] : a.shape[r - 2]};
      v.k = {1, 1, ta ? a.shape[r - 2] : a.shape[r - 1]};
      v.n = {1, 1, tb ? b.shape[r - 2] : b.shape[r - 1]};
      v.macs = v.groups * GemmView::size(v.m) * GemmView::size(v.n) * GemmView::size(v.k);
      add(Slot::A, GemmRole::Streamed);
      add(Slot::B, GemmRole::Stationary);
      add(Slot::Y, GemmRole::Out);
      return v;
    }
    case Opcode::Conv2d:
    case Opcode::Conv2dBwdData:
    case Opcode::Conv2dBwdWeight:
      break;
    default:
      throw InternalError("timing: gemm_view of non-PE instruction " +
                          std::string(inst.info().mnemonic));
  }
  const Conv cv = conv_of(inst);
  v.conv = cv;
  v.groups = cv.g;
  v.macs = cv.n * cv.p * cv.q * cv.k * cv.cg() * cv.r * cv.s;
  v.n = {1, 1, inst.opcode() == Opcode::Conv2dBwdData ? cv.cg() : cv.kg()};
  switch (inst.opcode()) {
    case Opcode::Conv2d:
      v.m = {cv.n, cv.p, cv.q};
      v.k = {cv.cg(), cv.r, cv.s};
      add(Slot::X, GemmRole::Streamed);
      add(Slot::W, GemmRole::Stationary);
      add(Slot::Bias, GemmRole::PerColumn);
      add(Slot::Residual, GemmRole::PerPixel);
      add(Slot::Y, GemmRole::Out);
      add(Slot::Pre, GemmRole::Out);
      add(Slot::Stats, GemmRole::Stats);
      break;
    case Opcode::Conv2dBwdData:
      v.m = {cv.n, cv.h, cv.w};
      v.k = {cv.kg(), taps(cv.r, cv.sh, cv.dh), taps(cv.s, cv.sw, cv.dw)};
      add(Slot::Dy, GemmRole::Streamed);
      add(Slot::W, GemmRole::Stationary);
      add(Slot::Residual, GemmRole::PerPixel);
      add(Slot::Gate, GemmRole::PerPixel);
      add(Slot::Dx, GemmRole::Out);
      break;
    default:
      v.m = {cv.cg(), cv.r, cv.s};
      v.k = {cv.n, cv.p, cv.q};
      add(Slot::X, GemmRole::Streamed);
      add(Slot::Dy, GemmRole::Stationary);
      add(Slot::Residual, GemmRole::PerPixel);
      add(Slot::Dw, GemmRole::Out);
      break;
  }
  return v;
}

Box operand_box(const GemmView& view, const isa::Instruction& inst, Slot slot, uint64_t g,
                const Range3& m, const Range3& n, const Range3& k) {
  if (slot == Slot::Bias) {  // [channels], columns of this group
    const uint64_t base = g * GemmView::size(view.n);
    Box b;
    b.lo[0] = base + n.lo[2];
    b.hi[0] = base + n.hi[2];
    return b;
  }
  if (slot == Slot::Stats) {  // [2, channels]
    const uint64_t base = g * GemmView::size(view.n);
    Box b;
    b.lo = {0, base + n.lo[2], 0, 0};
    b.hi = {2, base + n.hi[2], 0, 0};
    return b;
  }
  if (inst.opcode() == Opcode::Gemm || inst.opcode() == Opcode::Bmm)
    return gemm_box(view, slot, g, m, n, k);
  return conv_box(view, inst, slot, g, m, n, k);
}

}  // namespace s2::sim::timing
