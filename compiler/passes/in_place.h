#pragma once
// In-place gradients (pass `in-place`): an op that may write its result over one of its
// inputs does so when nothing reads that input afterwards, so the two never hold DRAM at the
// same time.
//
// Today that is the loss gradient: softmax_ce_bwd reads the logits [rows, classes] and writes
// dlogits of the same shape. For a language model the pair is the step's largest pair of
// buffers (gpt2-small at batch 8, 1024 tokens: 8192 x 50257 floats, 1570 MiB each) and both are
// live at the memory peak. Each row is read whole (its max and its sum of exponentials) before
// any element of it is written, so writing dlogits over the logits is safe row by row, in the
// interpreter, the functional model and the hardware's two passes over a row alike.
//
// For each softmax_ce_bwd with in_place=0, the pass sets in_place=1 (shape inference then
// makes dlogits a view of the logits' data) when
//   * the logits are an activation (not a weight, input, constant or state) and own their
//     buffer whole: dense, from offset 0;
//   * dlogits owns its buffer whole, and neither buffer is an output of the step or the loss;
//   * no op that reads or writes the logits' buffer depends on the gradient. The scheduler
//     orders every other reader before the in-place write (Graph::predecessors), so this is
//     what keeps that order possible.
// Every view of dlogits moves to the logits' buffer with it; dlogits' own buffer is dropped.
// The tensor-table entry of the buffer keeps the logits' name: after the step it holds dlogits
// (as a weight's entry holds the updated weight).

#include "compiler/passes/pass.h"

namespace s2::ir {

// The summary when nothing was made in place.
inline constexpr const char* kNothingInPlace = "no output written over its input";

PassResult write_in_place(const Graph& graph);

}  // namespace s2::ir
