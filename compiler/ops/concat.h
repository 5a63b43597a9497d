#pragma once
// Concatenation without copies (compiler/ops/concat.cpp has the op; the pass that places the
// parts is compiler/passes/concat_placement.h).

#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir {

// Where input i of concat `op` must sit for the concat to cost nothing: the slice of the
// concat's output tensor (its data node, strides and offset) along the op's axis that holds
// that input. The returned tensor has no name and no producer.
Tensor concat_slot(const Graph& graph, const Op& op, size_t i);

// Whether a tensor has exactly the layout of `slot` (data node, shape, strides, offset).
bool same_layout(const Tensor& t, const Tensor& slot);

// True when every input of concat `op` already sits in its slot, so the concat computes
// nothing: what pass place-concat establishes and the lowering requires.
bool concat_is_placed(const Graph& graph, const Op& op);

}  // namespace s2::ir
