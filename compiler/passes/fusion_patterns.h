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
//   relu_bwd or activation_bwd -> batch_norm_bwd    bn_bwd's gate (gate_act)
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
  std::vector<TensorId> intermediates;  // per absorbed op, the tensor it read from the chain;
                                        // each but `pre` no longer exists after the merge
  // An intermediate that other ops read too (a training step's activation backward reads the
  // activation's input): the fused op writes it as its output `pre` (keep_pre=1), so only the
  // activation's read of it is saved. Invalid when the chain has none.
  TensorId pre;
  uint64_t bytes_saved = 0;  // each removed intermediate written once and read once; pre read once

  size_t ops_removed() const { return ops.size() - 1; }
};

// Every candidate the features allow, heads in topological order (`order`), longer chains
// of one head first. Each intermediate is used by exactly one input slot of the next op,
// is neither a graph output nor the loss, and is the only tensor on its own dense data
// node (not a view, and not viewed); except `pre`, the last intermediate, which the
// activation reads beside other users whose activation's backward reads its input (silu, gelu,
// ...: numerics::reads_output false). Whether the merge would close a cycle is not checked
// here.
std::vector<Candidate> find_candidates(const Graph& graph, const std::vector<OpId>& order,
                                       const FusionOptions& options);

// The op that replaces the candidate's chain: ops[main] with the absorbed epilogue inputs
// and attributes, producing the last op's outputs (tensor ids of `graph`).
Op fused_op(const Graph& graph, const Candidate& candidate);

}  // namespace s2::ir::fusion
