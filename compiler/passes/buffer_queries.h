#pragma once
// Questions the buffer-rewriting passes (elide-copies, in-place) ask before they move a tensor
// onto another data node.

#include "compiler/ir/graph.h"

namespace s2::ir {

// True when an output of the step or the loss lives on data `d`: the host reads it after the
// step, so no pass may let another tensor overwrite it.
inline bool holds_step_output(const Graph& g, DataId d) {
  for (TensorId o : g.outputs())
    if (g.tensor(o).data == d) return true;
  return g.loss().valid() && g.tensor(g.loss()).data == d;
}

// True when `t` is its data node whole: dense, from offset 0, every element.
inline bool owns_buffer(const Graph& g, const Tensor& t) {
  return t.contiguous() && t.offset == 0 && t.numel() == g.data(t.data).numel;
}

}  // namespace s2::ir
