#pragma once
// Shape inference, as a check: re-runs every op's shape inference (its schema in the op
// registry) over the whole graph in topological order and compares each output with it:
// presence, element type, shape, and for views and in-place outputs the data node, strides
// and offset. Graphs built through Graph::add_op agree by construction; this catches graphs
// assembled node by node (frontends, passes) and stale shapes after an edit.
//
// Throws a UserError naming the graph, then each mismatching op and its output with the
// shape it has and the one shape inference gives (at most 10 lines), in topological order,
// ending at the first op whose inputs shape inference rejects (what follows it would only
// repeat the consequences). Returns the graph unchanged (changed == false).

#include "compiler/passes/pass.h"

namespace s2::ir {

PassResult shape_inference(const Graph& graph);

}  // namespace s2::ir
