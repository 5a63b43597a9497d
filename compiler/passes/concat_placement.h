#pragma once
// Concatenation without copies (pass `place-concat`).
//
// A concat computes nothing on the accelerator when each of its inputs is already written in
// its slice of the output: for channels, the input [N,C,H,W] of a concat into [N,C_total,H,W]
// is the strided view with strides [C_total*H*W, H*W, W, 1] at offset c0*H*W, and the PE or PPU
// instruction that produces it writes through that descriptor. This pass establishes that,
// visiting concats from the last to the first (so an outer concat places an inner one before
// the inner one places its own inputs):
//
//  * when the inputs already sit side by side in one buffer in order (DenseNet: each layer's
//    concat [x0, f1, .., fk] is a prefix of the block's final concat, placed first), the
//    concat's output becomes that view of the buffer: no buffer of its own, no copy;
//  * otherwise each input whose data node can move (an activation or gradient written by one
//    computing op, every tensor over it that same dense layout, not a step output) is moved
//    into its slice: all its tensors become views of the concat's buffer;
//  * any other input (a parameter, a view of a larger tensor, a tensor already placed in
//    another concat, an output of the step) is copied into its slice by a `copy` op (a
//    strided DMA copy).
//
// The result is exact: the same values, in the concat's buffer, with no instruction for the
// concat itself. The lowering refuses a concat whose inputs are not placed.

#include "compiler/passes/pass.h"

namespace s2::ir {

struct ConcatPlacement {
  int concats = 0;  // concat ops seen
  int placed = 0;   // inputs moved into their slice
  int views = 0;    // concats that became views of a larger concat's buffer
  int copies = 0;   // inputs copied into their slice
  int64_t copied_bytes = 0;
};

PassResult place_concats(const Graph& graph, ConcatPlacement* stats = nullptr);

}  // namespace s2::ir
