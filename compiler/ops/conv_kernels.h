#pragma once
// The convolution family's geometry as the op registry sees it (signed, from the attributes),
// private to ops/conv.cpp and its tests. The kernels themselves and their accumulation order
// are the hardware's and live in isa/numerics/conv.h, shared with the simulator.

#include <cstdint>

#include "isa/numerics/conv.h"

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

// The same geometry for isa/numerics/conv.h (every field validated non-negative by shape
// inference).
inline numerics::ConvGeometry to_numerics(const ConvGeometry& g) {
  auto u = [](int64_t v) { return static_cast<size_t>(v); };
  numerics::ConvGeometry out;
  out.n = u(g.n), out.c = u(g.c), out.h = u(g.h), out.w = u(g.w);
  out.k = u(g.k), out.r = u(g.r), out.s = u(g.s), out.p = u(g.p), out.q = u(g.q);
  out.sh = u(g.sh), out.sw = u(g.sw), out.pt = u(g.pt), out.pl = u(g.pl);
  out.dh = u(g.dh), out.dw = u(g.dw), out.groups = u(g.groups);
  return out;
}

}  // namespace s2::ir::conv_kernels
