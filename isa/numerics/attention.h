#pragma once
// Fused attention (attn_fwd, attn_bwd): FlashAttention-2's tiled forward and backward on the PE
// array and the PPU, shared by the compiler's reference interpreter and the simulator's
// functional model. Per batch index b (every leading dimension: batch x heads), with q [Tq, d],
// k [Tk, d], v [Tk, dv], the optional additive mask [Tq, Tk] and block sizes Bq x Bk:
//
// Scores of a block, as softmax (softmax.h) forms them: s = PE sum of q[i] . k[j] (the PeGemm
// contract, pe_gemm.h, K = d), z = fp32(scale * s), z = fp32(z + mask[i][j]); key j is left out
// for query i when causal and j > i. Then z = fp32(z - c[i]) with c[i] the row's offset: the
// largest mask value of its kept keys when every one of them saturates (finite and at or below
// kSaturatedMask: a padding mask's lowest float, on a query that sees only padding), else 0.
// Such a row's scores all round to the same value, so softmax gives it a uniform distribution,
// and so does the shifted row; unshifted, its lse would round to its max and lose log n, and
// the backward would recompute P = 1 instead of 1/n. lse[i] is relative to c[i] (the backward
// recomputes c[i] from the mask).
//
// Forward, per query row i, over key blocks in ascending order, from m = -inf, l = 0, acc = 0:
//   m'    = max(m, max z of the block's kept keys)   (a block with no kept key is skipped)
//   p[j]  = fp32(exp(z[j] - m')) for kept keys, 0 otherwise           (exp in double)
//   alpha = exp(m - m')                                                (0 while m = -inf)
//   l     = l * alpha + sum of p[j]                 (double, j ascending)
//   acc   = fp32(acc * alpha) (skipped when alpha = 1), then acc += p . v_block on the PE array
//           (the whole block's rows in one PeGemm call, K = Bk)
// and at the end y[i] = fp32(acc / l), lse[i] = fp32(m + log l). A row with no finite kept
// score gives NaN (0 / 0), as softmax does.
//
// Backward, from y, dy and lse; first Dr[i] = sum over e of dy[i][e] * y[i][e] (double, e
// ascending), then for each key block (ascending), for each query block (ascending; a block
// that causal leaves out entirely is skipped):
//   S     = q_blk . k_blkᵀ (PE), z as above
//   P     = fp32(exp(z - lse[i])) for kept keys, 0 otherwise          (exp in double)
//   dv_blk += Pᵀ . dy_blk                         (PE, K = Bq)
//   dP    = dy_blk . v_blkᵀ                       (PE, K = dv)
//   dS    = fp32(scale * P * (dP - Dr[i]))        (double, one rounding; softmax_bwd's form)
//   dq_blk += dS . k_blk                          (PE, K = Bk, into the running dq)
//   dk_blk += dSᵀ . q_blk                         (PE, K = Bq)
// Each "+=" is one PeGemm accumulate onto the running fp32 value, so dk and dv sum their query
// blocks in ascending order and dq its key blocks in ascending order. With Bk a multiple of the
// PE K-tile, dq sums exactly as an unfused bmm(dS, k) would; the forward's rescaling and the
// recomputed P are where fused and unfused results differ (docs/attention.md measures by how
// much).
//
// Multiply type (mode): q, k, v and dy are tensors of one float type, the PE array's multiply
// mode (f32, bf16 or f16). In a 16-bit mode the two on-chip multiplicands are rounded to it
// before they enter the array (numerics::round_to, low_precision.h), as FlashAttention-2 casts
// them to the input type: the forward's p for p . v (l sums the fp32 p), and the backward's P
// for Pᵀ . dy and dS for dS . k and dSᵀ . q (dS itself is formed from the fp32 P). Scores, m,
// l, lse, Dr and every accumulator stay fp32; the outputs are rounded to their tensors' types
// where they are written. In f32 mode nothing is rounded (the arithmetic above, bit for bit).
#include <cstddef>

#include "isa/encoding/isa_table.h"
#include "isa/numerics/pe_gemm.h"

namespace s2::numerics {

// A mask value at or below this (and finite) saturates the score it is added to.
inline constexpr float kSaturatedMask = -0x1p100f;

struct AttentionGeometry {
  size_t batches = 0;     // product of the leading dimensions
  size_t tq = 0, tk = 0;  // query and key rows
  size_t d = 0, dv = 0;   // head dimension of q and k, and of v
  size_t block_q = 1, block_k = 1;
  float scale = 1.0f;
  bool causal = false;
  isa::DType mode = isa::DType::F32;  // the multiply type: q's (and k's, v's, dy's)
};

// Dense row-major arrays, batch after batch: q [B,Tq,d], k [B,Tk,d], v [B,Tk,dv], mask
// [B,Tq,Tk] (may be null), y [B,Tq,dv], lse [B,Tq].
void attention_forward(const AttentionGeometry& g, const float* q, const float* k, const float* v,
                       const float* mask, float* y, float* lse, PeGemm& pe);

// dy [B,Tq,dv] the gradient of y; dq, dk, dv have the shapes of q, k, v (overwritten).
void attention_backward(const AttentionGeometry& g, const float* q, const float* k, const float* v,
                        const float* mask, const float* y, const float* dy, const float* lse,
                        float* dq, float* dk, float* dv, PeGemm& pe);

}  // namespace s2::numerics
