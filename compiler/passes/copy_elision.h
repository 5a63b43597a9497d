#pragma once
// Copy elision (pass `elide-copies`): a dense copy of a transposed output becomes the output,
// and a PE output read only through a transposed view is written in that view's order.
//
// A reshape that cannot view a permuted tensor reads a dense copy of it: attention's head
// merge `(att @ v).transpose(1, 2).reshape(n, t, d)` copies the [N, H, T, dh] product into
// [N, T, H, dh] order, and the backward densifies each head-split gradient the same way
// (`scale` with alpha 1, beta 0). Every PE, PPU and DMA instruction writes its outputs through
// a descriptor's strides, so the op that produced the permuted tensor can write it in the
// copy's layout directly. For each
//
//   y = P(...)            P a computing op, y a fresh dense output read by the transpose (and
//                         otherwise only by computing ops reading y itself: fused attention's
//                         backward reads the forward's y)
//   x = transpose(y)      read only by the copy
//   o = copy(x)           or scale(x) alpha=1 beta=0
//
// the pass makes y the view of o's data that x is of y's (strides permuted back, o's offset:
// o may already be a slice of a concat's buffer, placed by place-concat, which runs first),
// x then has o's shape, strides and offset, every reader of o reads x instead, and the copy is
// gone (with y's old buffer). The values are the same bits, except that the scale(1, 0) copy
// turned -0 into +0 and the elided one keeps -0. Not elided: a copy whose output is an output
// of the step, a producer that updates an input in place, a transposed tensor read by
// anything else, and a y read through another view.
//
// The same idea without a copy: a buffer written by a PE op (conv2d, gemm, bmm) whose every
// computing reader reads it through one transposed view x (ViT's patch embedding, conv2d's
// [N,C,H,W] read as [N,H*W,C] tokens by layer norm and the residual add; ConvNeXt's
// permute(0,2,3,1) after its depthwise conv) is laid out in x's order: the PE op writes through
// permuted strides (a tile's channels stay contiguous runs), x becomes dense, and every view
// over the buffer is derived again by its shape inference. Each reader then streams whole rows
// where it read one element per DRAM burst.

#include "compiler/passes/pass.h"

namespace s2::ir {

// The summary when nothing was elided.
inline constexpr const char* kNoCopyElided = "no copy of a transposed output";

PassResult elide_copies(const Graph& graph);

}  // namespace s2::ir
