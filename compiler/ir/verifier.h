#pragma once
// Structural checks of a graph, run after every pass: ids in range, each tensor produced by
// at most one op that lists it, views inside their data, attributes as the schema declares,
// inputs present, names unique, no cycle, and shapes that shape inference reproduces.
// A failure here is a compiler bug, reported with the node it concerns.

#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir {

// Every problem found, each naming its op or tensor; empty for a well-formed graph.
std::vector<std::string> verify_graph(const Graph& graph);

// Throws InternalError listing the problems (at most 10), prefixed with `after`
// (e.g. "after pass 'cse'").
void verify_or_throw(const Graph& graph, const std::string& after);

}  // namespace s2::ir
