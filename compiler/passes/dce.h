#pragma once
// Dead-code elimination.
//
// Keeps the ops that produce a graph output or the loss, the ops with a side effect
// (Graph::has_side_effect: in-place writes into weights, optimizer or batch-norm state), and
// every op those need; removes every other op, and every tensor and data node no kept op or
// output refers to. Parameters with role weight, input or label always stay (they are the
// step's interface, even when nothing reads them); other unused parameters (constants,
// scratch) go. Surviving nodes keep their relative order, renumbered densely.
//
// Preconditions: a well-formed graph (verify_graph). Returns changed == false, and the graph
// as it was, when nothing is dead.

#include "compiler/passes/pass.h"

namespace s2::ir {

PassResult dead_code_elimination(const Graph& graph);

}  // namespace s2::ir
