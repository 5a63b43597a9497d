#pragma once
// The fusion pass's patterns (passes/fusion.h): which chains of ops one epilogue can absorb,
// and what the fused op looks like. Private to passes/fusion.cpp; a header of its own so the
// search and the rebuild in fusion.cpp stay apart from what each pattern means.
//
// A candidate is a chain of ops, each consuming the single-use intermediate of the one
// before, that the ISA executes as one instruction:
//   PE op [-> add] [-> act] [-> relu_bwd]    in the epilogue's order: residual, act, gate
//   batch_norm -> act                        bn_fwd's act
// where act is relu or an activation op (relu6, sigmoid, ...).
//   relu_bwd -> batch_norm_bwd               bn_bwd's gate
// Every prefix of a PE chain is a candidate of its own (longest first), so the search can
// trade a long epilogue for a shorter one that leaves its tail to another group.

#include <cstdint>
#include <set>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/fusion.h"

namespace s2::ir::fusion {

struct Candidate {
  std::vector<OpId> ops;                // in dataflow order
  size_t main = 0;                      // index in ops of the op the fused op extends
  std::vector<FusionPattern> absorbed;  // per op other than ops[main], in order
  std::vector<TensorId> intermediates;  // tensors that no longer exist after the merge
  uint64_t bytes_saved = 0;             // each intermediate written once and read once

  size_t ops_removed() const { return ops.size() - 1; }
};

// Every candidate the features allow, heads in topological order (`order`), longer chains
// of one head first. Each intermediate is used by exactly one input slot of the next op,
// is neither a graph output nor the loss, and is the only tensor on its own dense data
// node (not a view, and not viewed). Whether the merge would close a cycle is not checked
// here.
std::vector<Candidate> find_candidates(const Graph& graph, const std::vector<OpId>& order,
                                       const FusionOptions& options);

// The op that replaces the candidate's chain: ops[main] with the absorbed epilogue inputs
// and attributes, producing the last op's outputs (tensor ids of `graph`).
Op fused_op(const Graph& graph, const Candidate& candidate);

}  // namespace s2::ir::fusion
