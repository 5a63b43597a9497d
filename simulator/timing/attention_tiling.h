#pragma once
// Fused attention on the PE array (attn_fwd, attn_bwd; isa/numerics/attention.h): the block
// sizes the compiler encodes, what a tile of them holds on chip, and the tiles the sequencer
// runs. Per batch index b (batch x heads), q [Tq, d], k [Tk, d], v [Tk, dv]; Bq x Bk blocks.
//
// Half-buffer footprints in elements (the other half double-buffers, as tiling.h). Those of
// the input and weight buffers and y are of the multiply type (E bytes: 4 for f32, 2 for bf16
// and f16; p and ds are rounded to it before they are multiplied); the rest are f32 (4 bytes):
//              attn_fwd                          attn_bwd
//   input      Bq*d (q) + Bq*Bk (p)              Bq*(d + dv) (q, dy) + Bq*Bk (p, ds)
//   weight     Bk*(d + dv) (k, v)                Bk*(d + dv) (k, v)
//   accum.     Bq*Bk (scores) + Bq*dv (y acc.)   Bq*Bk (s, dp) + Bk*(d + dv) (dk, dv acc.)
//                                                + Bq*d (dq block)
//   output     Bq*dv (y, E) + 3*Bq (m, l, lse)   2*Bq (lse, Dr) + Tq (every row's Dr)
//              + Bq*Bk (mask block, when given)  + Bq*Bk (mask block, when given)
//
// Forward tiles, for each b, query block i, key block j (ascending; a block causal leaves out
// entirely is not run): loads q_i (with the first j), k_j, v_j and the mask block; PE cycles of
// the two products q_i k_jᵀ (Bq x Bk x d) and p v_j (Bq x dv x Bk); PPU cycles of a softmax
// pass over the Bq x Bk scores plus, from the second block on, an eltwise pass rescaling the
// Bq x dv accumulator; stores y_i and lse_i with the last j.
// Backward: first, per b and query block, a PPU tile reading y_i and dy_i for Dr (a reduce
// pass over Bq x dv). Then for each b, key block j, query block i (kept ones): loads k_j, v_j
// (with the first i), q_i, dy_i, lse_i, the mask block and, from the second key block on, the
// running dq_i; PE cycles of the five products (s, dv, dp, dq, dk); PPU cycles of a softmax
// pass (p) and a softmax_bwd pass (ds) over Bq x Bk; stores the running dq_i every tile and
// dk_j, dv_j with the last i. The running dq_i is dq itself when dq is f32; a 16-bit dq sums in
// the f32 dq_acc instead, and dq_i is also stored, rounded, with its last kept key block. Only q,
// k, v, y, dy, lse, the mask and the gradients move through DRAM: the [Tq, Tk] scores never do.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "isa/encoding/instruction.h"
#include "isa/target/target_desc.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/timing/tiling.h"

namespace s2::sim::timing {

struct AttentionShape {
  uint64_t batches = 0, tq = 0, tk = 0, d = 0, dv = 0;
  bool causal = false;
  bool mask = false;
  uint64_t elem = 4;    // bytes of an element of the multiply type (q, k, v, dy, y, gradients)
  bool dq_acc = false;  // the backward sums dq in an f32 dq_acc (dq is 16-bit)
};

struct AttentionBlocks {
  uint64_t q = 0, k = 0;
};

// The shape of an attn_fwd or attn_bwd instruction (well formed: semantics.h).
AttentionShape attention_shape(const isa::Instruction& inst);

// Bytes of each Buffer a tile uses (the table above).
std::array<uint64_t, 4> attention_footprint(const AttentionShape& s, const AttentionBlocks& b,
                                            bool backward);

// Estimated DRAM bytes of the forward and the backward together with these blocks.
uint64_t attention_dram_bytes(const AttentionShape& s, const AttentionBlocks& b);

// The blocks the compiler encodes for a target: among power-of-two multiples of the array edge
// below each extent, the extents themselves and the powers of two below the edge, those whose
// forward and backward tiles both fit half of every buffer; the fewest estimated DRAM bytes,
// then the largest Bq * Bk, then the largest Bk. nullopt when not even 1 x 1 fits.
std::optional<AttentionBlocks> choose_attention_blocks(const target::TargetDesc& target,
                                                       const AttentionShape& s);

// MACs of the instruction's products (kept blocks only; for the roofline).
uint64_t attention_macs(const isa::Instruction& inst);

// The tiles of an attn_fwd or attn_bwd instruction. A block pair that does not fit the
// target's buffers is a UserError naming the buffer (the executable was compiled for another
// target).
std::vector<Tile> tile_attention(const isa::Instruction& inst, const target::TargetDesc& target,
                                 const PeArrayModel& model,
                                 TileDetail detail = TileDetail::Accesses);

}  // namespace s2::sim::timing
