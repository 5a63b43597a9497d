#pragma once
// 2-D max and average pooling on the PPU, per [H, W] plane of x [planes, H, W] (planes = N*C),
// shared by the compiler's reference interpreter and the simulator's functional model.
// Semantics are PyTorch's max_pool2d / avg_pool2d with the padding given per side; the caller
// supplies the output plane P x Q (isa::window_output_size, ceil_mode included) and has
// checked that every window overlaps the input (pads at most half the kernel).
//
// A window starts at (p*sh - pt, q*sw - pl), is clipped at the far padding (H + pb, W + pr)
// and then to the input; padding never wins a max and adds nothing to a sum. Windows are
// visited row-major over the output plane, each window's elements row-major. fp32 throughout,
// native + and / (no fused multiply-add):
//   max_pool2d_forward   the first maximum in row-major window order wins, a NaN always wins;
//                        index = h*W + w of the winner inside its input plane.
//   max_pool2d_backward  dx = 0, then dx[index] += dy in output row-major order.
//   avg_pool2d_forward   y = ((0 + x_0) + x_1) + ...) / divisor.
//   avg_pool2d_backward  dx = 0, then each window's dy / divisor is added to its elements,
//                        windows in output row-major order.
// The divisor is the window's size clipped at the far padding with count_include_pad, else
// the number of input elements in the window.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace s2::numerics {

struct PoolGeometry {
  int64_t planes = 0, h = 0, w = 0;  // input x [planes, H, W]
  int64_t p = 0, q = 0;              // output y [planes, P, Q]
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;  // padding: top, left, bottom, right
};

// Dense row-major arrays; outputs are overwritten. indices may be null (not wanted).
void max_pool2d_forward(const PoolGeometry& g, const float* x, float* y, int32_t* indices);

// Returns the flat output position (plane*P*Q + p*Q + q) of the first index outside
// [0, H*W), leaving dx unspecified — the caller reports it, naming its op or instruction —
// or nullopt when every index is inside its plane. Never writes outside dx.
std::optional<size_t> max_pool2d_backward(const PoolGeometry& g, const float* dy,
                                          const int32_t* indices, float* dx);

void avg_pool2d_forward(const PoolGeometry& g, bool count_include_pad, const float* x, float* y);
void avg_pool2d_backward(const PoolGeometry& g, bool count_include_pad, const float* dy, float* dx);

}  // namespace s2::numerics
