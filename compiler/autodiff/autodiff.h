#pragma once
// Automatic differentiation: turns a forward graph with a loss into one complete training
// step — the forward, the loss, the backward (each op's backward rule from the registry,
// applied in reverse topological order), and an SGD update of every weight.
//
// Preconditions: graph.loss() is set (a softmax_ce output); trainable parameters have role
// Weight. Where a tensor feeds several ops, the gradients flowing back are summed with `add`
// ops; an op that a gradient must pass through without a backward rule is a UserError naming
// the op and the input.

#include "compiler/ir/graph.h"

namespace s2::ir {

struct SgdOptions {
  double lr = 0.01;
  double momentum = 0.9;
  double weight_decay = 5e-4;
};

struct AutodiffStats {
  size_t backward_ops = 0;   // activation- and weight-gradient ops added
  size_t accumulations = 0;  // add ops summing gradients at forks
  size_t updates = 0;        // sgd ops added
};

AutodiffStats build_training_step(Graph& graph, const SgdOptions& options);

}  // namespace s2::ir
