#pragma once
// Common-subexpression elimination.
//
// Two ops of the same type with the same attributes and the same inputs compute the same
// outputs; the later one is dropped and its uses read the earlier one's outputs. Attributes
// compare by their printed text, so 0.0 and -0.0 (which scale distinguishes) stay apart.
// Ops that write in place, or have a side effect, are never merged: their outputs are new
// versions of state, not values. Chains merge in one run (inputs compare after earlier
// merges). The category (forward, gradient, ...) does not take part: the earlier op's
// outputs, and their roles, win.
//
// Preconditions: a well-formed graph. The later op of a pair is gone from the result (the
// earlier one reads the same inputs, so nothing else becomes dead). Outputs of the step that
// became one tensor are listed once. Returns changed == false, and the graph as it was, when
// no two ops match.

#include "compiler/passes/pass.h"

namespace s2::ir {

PassResult common_subexpression_elimination(const Graph& graph);

}  // namespace s2::ir
