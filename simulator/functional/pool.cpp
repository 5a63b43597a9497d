#include "simulator/functional/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Field;
using isa::Slot;

struct PoolGeometry {
  int64_t planes = 0, h = 0, w = 0, p = 0, q = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0, pb = 0, pr = 0;
};

struct Window {
  int64_t h0, h1, w0, w1;  // clipped to the input
  int64_t padded_count;    // size before clipping to the input, clipped to the far padding
  float divisor(bool include_pad) const {
    return static_cast<float>(include_pad ? padded_count : (h1 - h0) * (w1 - w0));
  }
};

// x (or dx) gives the planes and the input plane, y (or dy) the output plane.
PoolGeometry geometry(const isa::Instruction& inst, const isa::TensorDesc& input,
                      const isa::TensorDesc& output) {
  PoolGeometry g;
  g.planes = int64_t{input.shape[0]} * input.shape[1];
  g.h = input.shape[2], g.w = input.shape[3];
  g.p = output.shape[2], g.q = output.shape[3];
  g.kh = inst.u(Field::KernelH), g.kw = inst.u(Field::KernelW);
  g.sh = inst.u(Field::StrideH), g.sw = inst.u(Field::StrideW);
  g.pt = inst.u(Field::PadTop), g.pl = inst.u(Field::PadLeft);
  g.pb = inst.u(Field::PadBottom), g.pr = inst.u(Field::PadRight);
  return g;
}

Window window(const PoolGeometry& g, int64_t pp, int64_t qq) {
  int64_t h0 = pp * g.sh - g.pt, w0 = qq * g.sw - g.pl;
  int64_t h1 = std::min(h0 + g.kh, g.h + g.pb), w1 = std::min(w0 + g.kw, g.w + g.pr);
  const int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.h), w1 = std::min(w1, g.w);
  return {h0, h1, w0, w1, padded};
}

size_t idx(int64_t v) {
  return static_cast<size_t>(v);
}

}  // namespace

void run_maxpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::X), ops.desc(Slot::Y));
  const std::vector<float> x = ops.f32(Slot::X);
  std::vector<float> y(idx(g.planes * g.p * g.q));
  std::vector<int32_t> at_out(y.size());
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const float* in = x.data() + plane * g.h * g.w;
    const int64_t base = plane * g.p * g.q;
    for (int64_t pp = 0; pp < g.p; ++pp)
      for (int64_t qq = 0; qq < g.q; ++qq) {
        const Window win = window(g, pp, qq);
        float best = -std::numeric_limits<float>::infinity();
        int64_t at = win.h0 * g.w + win.w0;
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) {
            const float v = in[ih * g.w + iw];
            if (v > best || std::isnan(v)) best = v, at = ih * g.w + iw;
          }
        y[idx(base + pp * g.q + qq)] = best;
        at_out[idx(base + pp * g.q + qq)] = static_cast<int32_t>(at);
      }
  }
  ops.write(Slot::Y, y);
  if (ops.has(Slot::Idx)) ops.write(Slot::Idx, at_out);
}

void run_maxpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::Dx), ops.desc(Slot::Dy));
  const std::vector<float> dy = ops.f32(Slot::Dy);
  const std::vector<int32_t> at_in = ops.i32(Slot::Idx);
  const int64_t plane_in = g.h * g.w, plane_out = g.p * g.q;
  std::vector<float> dx(idx(g.planes * plane_in), 0.0f);
  for (int64_t plane = 0; plane < g.planes; ++plane)
    for (int64_t o = 0; o < plane_out; ++o) {
      const int64_t at = at_in[idx(plane * plane_out + o)];
      if (at < 0 || at >= plane_in)
        ops.fail("idx " + std::to_string(at) + " of output " + std::to_string(o) + " in plane " +
                 std::to_string(plane) + " lies outside the " + std::to_string(g.h) + "x" +
                 std::to_string(g.w) + " input plane");
      dx[idx(plane * plane_in + at)] += dy[idx(plane * plane_out + o)];
    }
  ops.write(Slot::Dx, dx);
}

void run_avgpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::X), ops.desc(Slot::Y));
  const bool include_pad = inst.flag(Field::CountIncludePad);
  const std::vector<float> x = ops.f32(Slot::X);
  std::vector<float> y(idx(g.planes * g.p * g.q));
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const float* in = x.data() + plane * g.h * g.w;
    float* out = y.data() + plane * g.p * g.q;
    for (int64_t pp = 0; pp < g.p; ++pp)
      for (int64_t qq = 0; qq < g.q; ++qq) {
        const Window win = window(g, pp, qq);
        float sum = 0.0f;
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw)
            sum += in[ih * g.w + iw];
        out[pp * g.q + qq] = sum / win.divisor(include_pad);
      }
  }
  ops.write(Slot::Y, y);
}

void run_avgpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::Dx), ops.desc(Slot::Dy));
  const bool include_pad = inst.flag(Field::CountIncludePad);
  const std::vector<float> dy = ops.f32(Slot::Dy);
  std::vector<float> dx(idx(g.planes * g.h * g.w), 0.0f);
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const float* in = dy.data() + plane * g.p * g.q;
    float* out = dx.data() + plane * g.h * g.w;
    for (int64_t pp = 0; pp < g.p; ++pp)
      for (int64_t qq = 0; qq < g.q; ++qq) {
        const Window win = window(g, pp, qq);
        const float grad = in[pp * g.q + qq] / win.divisor(include_pad);
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw)
            out[ih * g.w + iw] += grad;
      }
  }
  ops.write(Slot::Dx, dx);
}

}  // namespace s2::sim::functional
