#pragma once
// Read-only traversal of a graph with return values (STYLE.md, "The IR"): visit() sees each
// op, in topological order, through const references only, and returns a value per op.
// Rewriting is GraphRewriter's job (passes/pass.h), which builds a new graph instead.

#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir {

template <typename Result>
class GraphVisitor {
 public:
  virtual ~GraphVisitor() = default;

  // One result per op, in the order visited.
  std::vector<Result> run(const Graph& graph) {
    std::vector<Result> results;
    results.reserve(graph.num_ops());
    for (OpId id : graph.topo_order())
      results.push_back(visit(graph, graph.op(id)));
    return results;
  }

 protected:
  virtual Result visit(const Graph& graph, const Op& op) = 0;
};

}  // namespace s2::ir
