#pragma once
// Attention fusion (`s2c compile --fuse-attention`): each attention of a training step,
//   scores = bmm(q, k, trans_b=1);  p = softmax(scores [, mask]);  y = bmm(p, v)
// with the backward autodiff built for it,
//   dp = bmm(dy, v, trans_b=1);  dv = bmm(p, dy, trans_a=1);  ds = softmax_bwd(dp, p);
//   dq = bmm(ds, k);  dk = bmm(ds, q, trans_a=1)
// becomes one `attention` op (y and each row's log-sum-exp, lse) and one `attention_bwd` op
// (dq, dk, dv), FlashAttention-style (ops/attention.cpp, isa/numerics/attention.h): the
// [.., Tq, Tk] scores, probabilities and their gradients are never written to DRAM and p is no
// longer saved for the backward; lse [.., Tq] is, and y lives until the backward.
//
// Block sizes: sim::timing::choose_attention_blocks for the target (its SRAM buffers and array
// edge), the same rule the simulator's tiling checks them against.
//
// A match needs exactly these uses: scores read only by the softmax; p read only by the
// forward bmm, the dv bmm and the softmax_bwd (same scale); dp read only by the softmax_bwd;
// ds read only by the dq and dk bmms. A forward with no backward (p read only by the forward
// bmm) fuses alone. Anything else (a mask that needs a gradient, p read elsewhere, blocks that
// do not fit the target) stays unfused, and the summary counts why. The dead unfused ops are
// removed (dead-code elimination) before the result is returned.
//
// Numerics: not bit-identical to the unfused ops (the online softmax rescales per key block
// and the backward recomputes p from lse); docs/attention.md gives the measured difference.

#include "compiler/passes/pass.h"
#include "isa/target/target_desc.h"

namespace s2::ir {

PassResult fuse_attention(const Graph& graph, const target::TargetDesc& target);

}  // namespace s2::ir
