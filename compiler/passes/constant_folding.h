#pragma once
// Constant folding.
//
// An op whose present inputs are all constant data (Data::constant) and that neither writes
// in place nor has a side effect is evaluated at compile time by its reference-interpreter
// kernel (the Interpreter, on a graph of just that op), and each of its outputs becomes a
// new constant parameter: role scratch, constant, with the computed contents, named like the
// output it replaces. Views of constants fold too, into dense constants, but for broadcasts
// (a view with more elements than its data, such as an expand), which stay views. Results are the
// interpreter's, bit for bit. Folded outputs are constants, so chains fold in one run.
//
// Preconditions: a well-formed graph whose constant data nodes are never written. Folded ops
// are gone from the result, but the constants they read stay; run dead_code_elimination
// after. Returns changed == false,
// and the graph as it was, when no op is foldable.

#include "compiler/passes/pass.h"

namespace s2::ir {

PassResult constant_folding(const Graph& graph);

}  // namespace s2::ir
