#pragma once
// Every PE instruction seen as an implicit GEMM, the form the PE array computes:
//   out[M, N] (+)= streamed[M, K] x stationary[K, N], once per channel group.
// The streamed operand flows through the array row by row (from the input buffer); the
// stationary one is held in the PEs (from the weight buffer) in the weight-stationary
// dataflow. Each of the three axes is a 3-D index space, so that a block of consecutive
// indices aligned as blocks_of() makes them is a box on every DRAM tensor involved.
//
//   instruction        M (rows out)          N (columns out)  K (reduction)
//   conv2d             (N, P, Q) pixels of y  K/g channels     (C/g, R, S) window taps
//   conv2d_bwd_data    (N, H, W) pixels of dx C/g channels     (K/g, Th, Tw) taps reaching
//                                                                one dx pixel (see below)
//   conv2d_bwd_weight  (C/g, R, S) of dw      K/g channels     (N, P, Q) pixels of dy
//   gemm               (1, 1, M)              N                (1, 1, K)
//   bmm                (1, 1, M)              N                (1, 1, K), one group per batch
//                                                                index (B0, or B0 x B1)
//
// conv2d_bwd_data is computed as a gather over dx pixels (no zero insertion): with stride s
// and dilation d along an axis, the taps r that reach one dx row satisfy r*d = h + pad (mod s),
// an arithmetic progression of step s / gcd(s, d), so at most Th = ceil(R / (s / gcd(s, d)))
// of them. M*N*K of the mapping is therefore >= the true MAC count (equal for stride 1).
//
// `macs` is the true MAC count of the instruction (for the roofline): N*P*Q*K*(C/g)*R*S for
// all three convolutions, M*N*K for gemm. groups*M*N*K >= macs always, so a PE cycle count
// derived from the mapping can never beat the compute roofline.

#include <array>
#include <cstdint>
#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/timing/dram_access.h"

namespace s2::sim::timing {

using Dims3 = std::array<uint64_t, 3>;

// A box of one GEMM axis: [lo[i], hi[i]) per index dimension.
struct Range3 {
  Dims3 lo{};
  Dims3 hi{};
};

// What a PE operand is to the array, which decides when the sequencer moves it.
enum class GemmRole : uint8_t {
  Streamed,    // [M, K] block, input buffer, loaded for every tile
  Stationary,  // [K, N] block, weight buffer
  Out,         // [M, N] block written after the last K block
  PerPixel,    // [M, N] epilogue input (residual, gate), output buffer, read with the last K block
  PerColumn,   // [N] epilogue input (bias), output buffer
  Stats,       // [2, N] written once per N block when its last M block completes
};

struct GemmOperand {
  isa::Slot slot;
  GemmRole role;
};

// The shape parameters of a convolution, decoded once by gemm_view(): operand_box() runs for
// every tile and operand, where decoding the instruction's fields again cost more than
// computing the box.
struct ConvShape {
  uint64_t n = 0, c = 0, h = 0, w = 0;  // forward input
  uint64_t k = 0, r = 0, s = 0;         // weights [k, c/g, r, s]
  uint64_t p = 0, q = 0;                // forward output
  uint64_t g = 1;
  int64_t sh = 1, sw = 1, pt = 0, pl = 0, dh = 1, dw = 1;
  uint64_t cg() const { return c / g; }
  uint64_t kg() const { return k / g; }
};

struct GemmView {
  uint64_t groups = 1;
  Dims3 m{1, 1, 1};
  Dims3 n{1, 1, 1};
  Dims3 k{1, 1, 1};
  uint64_t macs = 0;
  unsigned elem_bytes = 4;                // every PE operand is f32
  std::vector<GemmOperand> operands;      // the present operands of the instruction
  ConvShape conv;                         // conv2d*: its parameters (unused for gemm)
  bool trans_a = false, trans_b = false;  // gemm, bmm: the transpose flags
  unsigned batch_rank = 0;                // bmm: leading batch dimensions (1 or 2) ...
  uint64_t batch_inner = 1;               // ... and the size of the second one (group g is
                                          // batch index (g / batch_inner, g % batch_inner))

  static uint64_t size(const Dims3& d) { return d[0] * d[1] * d[2]; }
};

// The mapping of a PE instruction (conv2d, conv2d_bwd_data, conv2d_bwd_weight, gemm, bmm); an
// internal error for any other opcode. The instruction must be well formed (semantics.h).
GemmView gemm_view(const isa::Instruction& inst);

// The box of operand `slot` that the block (group g, rows m, columns n, reduction k) touches;
// `view` is gemm_view(inst).
// For Stationary and Streamed operands this is the bounding box of what the block reads
// (convolution halos included, clipped to the tensor); for PerColumn and Stats the columns
// n; for Out and PerPixel exactly the block. May be empty (a block entirely in padding).
Box operand_box(const GemmView& view, const isa::Instruction& inst, isa::Slot slot, uint64_t g,
                const Range3& m, const Range3& n, const Range3& k);

}  // namespace s2::sim::timing
