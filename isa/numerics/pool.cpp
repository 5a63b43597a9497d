#include "isa/numerics/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace s2::numerics {
namespace {

// One window: the rows [h0, h1) and columns [w0, w1) it covers inside the input, and the
// positions it covers inside the input plus its padding (PyTorch's pool_size).
struct Window {
  int64_t h0, h1, w0, w1, padded_count;

  float divisor(bool count_include_pad) const {
    return static_cast<float>(count_include_pad ? padded_count : (h1 - h0) * (w1 - w0));
  }
};

Window window(const PoolGeometry& g, int64_t pp, int64_t qq) {
  int64_t h0 = pp * g.sh - g.pt, w0 = qq * g.sw - g.pl;
  int64_t h1 = std::min(h0 + g.kh, g.h + g.pb), w1 = std::min(w0 + g.kw, g.w + g.pr);
  const int64_t padded_count = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.h), w1 = std::min(w1, g.w);
  return {h0, h1, w0, w1, padded_count};
}

// Calls fn(plane, o, window) for every output position, planes in order and each plane's
// outputs row-major; o = plane*P*Q + p*Q + q is the flat output index.
template <typename Fn>
void for_each_window(const PoolGeometry& g, Fn fn) {
  for (int64_t plane = 0; plane < g.planes; ++plane)
    for (int64_t pp = 0; pp < g.p; ++pp)
      for (int64_t qq = 0; qq < g.q; ++qq)
        fn(plane, (plane * g.p + pp) * g.q + qq, window(g, pp, qq));
}

}  // namespace

void max_pool2d_forward(const PoolGeometry& g, const float* x, float* y, int32_t* indices) {
  for_each_window(g, [&](int64_t plane, int64_t o, const Window& win) {
    const float* in = x + plane * g.h * g.w;
    float best = -std::numeric_limits<float>::infinity();
    int64_t at = win.h0 * g.w + win.w0;
    for (int64_t ih = win.h0; ih < win.h1; ++ih)
      for (int64_t iw = win.w0; iw < win.w1; ++iw) {
        const float v = in[ih * g.w + iw];
        if (v > best || std::isnan(v)) best = v, at = ih * g.w + iw;
      }
    y[o] = best;
    if (indices != nullptr) indices[o] = static_cast<int32_t>(at);
  });
}

std::optional<size_t> max_pool2d_backward(const PoolGeometry& g, const float* dy,
                                          const int32_t* indices, float* dx) {
  const int64_t plane_in = g.h * g.w, plane_out = g.p * g.q;
  std::fill(dx, dx + g.planes * plane_in, 0.0f);
  for (int64_t plane = 0; plane < g.planes; ++plane)
    for (int64_t o = plane * plane_out; o < (plane + 1) * plane_out; ++o) {
      const int64_t at = indices[o];
      if (at < 0 || at >= plane_in) return static_cast<size_t>(o);
      dx[plane * plane_in + at] += dy[o];
    }
  return std::nullopt;
}

void avg_pool2d_forward(const PoolGeometry& g, bool count_include_pad, const float* x, float* y) {
  for_each_window(g, [&](int64_t plane, int64_t o, const Window& win) {
    const float* in = x + plane * g.h * g.w;
    float sum = 0.0f;
    for (int64_t ih = win.h0; ih < win.h1; ++ih)
      for (int64_t iw = win.w0; iw < win.w1; ++iw)
        sum += in[ih * g.w + iw];
    y[o] = sum / win.divisor(count_include_pad);
  });
}

void avg_pool2d_backward(const PoolGeometry& g, bool count_include_pad, const float* dy,
                         float* dx) {
  std::fill(dx, dx + g.planes * g.h * g.w, 0.0f);
  for_each_window(g, [&](int64_t plane, int64_t o, const Window& win) {
    float* out = dx + plane * g.h * g.w;
    const float grad = dy[o] / win.divisor(count_include_pad);
    for (int64_t ih = win.h0; ih < win.h1; ++ih)
      for (int64_t iw = win.w0; iw < win.w1; ++iw)
        out[ih * g.w + iw] += grad;
  });
}

}  // namespace s2::numerics
