#pragma once
// What every graph pass returns, and the copy-on-write rewriter passes are built on.
//
// A pass takes a graph and returns a graph: the same graph (changed == false) when it found
// nothing to do, otherwise a new one. Passes never modify their input.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir {

struct PassResult {
  Graph graph;
  bool changed = false;
  std::string summary;  // one line for `s2c -v`, e.g. "removed 12 ops"
};

// Rebuilds a graph op by op in topological order into a new graph. For each op, rewrite()
// either returns nullopt (the op is copied unchanged) or the tensors of the NEW graph that
// replace the op's outputs (existing ones, or ones it emits through the context). Uses of a
// replaced output are redirected to its replacement. Ops that end up unused are NOT removed
// here; run dead-code elimination after.
class GraphRewriter {
 public:
  virtual ~GraphRewriter() = default;

  // The rewritten graph; `changed` is false (and the graph a plain copy) when rewrite()
  // returned nullopt for every op.
  PassResult run(const Graph& in);

 protected:
  class Context {
   public:
    Graph& graph() { return out_; }
    const Graph& old_graph() const { return in_; }
    // The new graph's tensor for an old tensor already copied (inputs of the current op are).
    TensorId map(TensorId old) const;
    // Emits an op into the new graph (inputs are new-graph tensors).
    std::vector<TensorId> emit(OpType type, const std::string& name, OpCategory category,
                               const std::vector<TensorId>& inputs, const Attrs& attrs = {});

   private:
    friend class GraphRewriter;
    Context(const Graph& in, Graph& out) : in_(in), out_(out) {}
    const Graph& in_;
    Graph& out_;
    std::vector<TensorId> tensor_map_;
    std::vector<DataId> data_map_;
  };

  virtual std::optional<std::vector<TensorId>> rewrite(const Op& op, Context& ctx) = 0;

 private:
  static TensorId copy_tensor(Context& ctx, TensorId old, OpId producer);
};

}  // namespace s2::ir
