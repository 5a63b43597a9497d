#pragma once
// Automatic differentiation: turns a forward graph with a loss into one complete training
// step — the forward, the loss, the backward (each op's backward rule from the registry,
// applied in reverse topological order), and an optimizer update (SGD or AdamW) of every weight.
//
// Preconditions: graph.loss() is set (a softmax_ce output); trainable parameters have role
// Weight. Where a tensor feeds several ops, the gradients flowing back are summed with `add`
// ops; an op that a gradient must pass through without a backward rule is a UserError naming
// the op and the input.
//
// With clip_grad_norm > 0, every weight gradient's sum of squares (reduce_sumsq, [1]) is
// concatenated into grad_sumsq [K]; clip_scale (op clip_grad_norm) makes the global norm (the
// graph output clip_grad_norm.total_norm) and the factor every update multiplies its gradient by
// (its grad_scale input). No weight can be updated before the last gradient exists: the data
// dependences say so, and every schedule follows them. These ops are weight_update ops.

#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"

namespace s2::ir {

// The update of every weight: PyTorch's torch.optim.SGD or torch.optim.AdamW.
struct OptimizerOptions {
  std::string optimizer = "sgd";  // "sgd" or "adamw"
  double lr = 0.01;               // s2c's default for adamw: 1e-3
  double momentum = 0.9;          // sgd only
  double weight_decay = 5e-4;     // s2c's default for adamw: 0.01 (decoupled)
  double beta1 = 0.9;             // adamw only
  double beta2 = 0.999;
  double eps = 1e-8;
  // Gradient clipping by global L2 norm (torch.nn.utils.clip_grad_norm_ before the step):
  // 0 = off.
  double clip_grad_norm = 0.0;

  bool adamw() const { return optimizer == "adamw"; }
  // The copies of each weight the step keeps in DRAM throughout: the weight, with SGD momentum
  // its velocity, with AdamW its two moments.
  uint64_t weight_copies() const { return adamw() ? 3 : momentum != 0.0 ? 2 : 1; }
};

struct AutodiffStats {
  size_t backward_ops = 0;   // activation- and weight-gradient ops added
  size_t accumulations = 0;  // add ops summing gradients at forks
  size_t updates = 0;        // sgd or adamw ops added
  bool clipped = false;      // clip_scale added (clip_grad_norm > 0)
};

AutodiffStats build_training_step(Graph& graph, const OptimizerOptions& options);

// The training step as it would be without gradient clipping: every update's grad_scale
// removed, the clipping ops and their total_norm output dropped. For the compile summary's
// cost of clipping. A graph without clip_scale comes back unchanged.
Graph without_grad_clipping(const Graph& graph);

}  // namespace s2::ir
