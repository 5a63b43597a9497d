#pragma once
// What an op's backward rule sees (ops/registry.h, OpSchema::backward). The rule reads the
// forward op, the gradients flowing into its outputs, and emits ops that compute the
// gradients of the inputs that need one; autodiff sums contributions where a tensor forks.

#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir {

class BackwardContext {
 public:
  BackwardContext(Graph& graph, Op forward, std::vector<TensorId> output_grads,
                  std::vector<bool> input_needs_grad);

  Graph& graph() { return graph_; }
  const Op& forward() const { return forward_; }
  const Attrs& attrs() const { return forward_.attrs; }
  TensorId input(size_t i) const { return forward_.inputs.at(i); }
  TensorId output(size_t i) const { return forward_.outputs.at(i); }
  // A tensor of the graph. The reference is invalidated by emit(), which may grow the graph's
  // storage: copy what you need (shapes) before emitting.
  const Tensor& tensor(TensorId t) const { return graph_.tensor(t); }

  // The gradient of the forward output i, or an invalid id when none flows into it.
  TensorId grad_output(size_t i) const { return output_grads_.at(i); }
  bool needs_grad(size_t i) const { return input_needs_grad_.at(i); }
  // WeightGrad when forward input i is a weight (its gradient feeds an update), else
  // ActivationGrad: the category for an op computing that input's gradient.
  OpCategory grad_category(size_t i) const;

  // Adds a backward op named "<forward name>.<suffix>" and returns its outputs.
  std::vector<TensorId> emit(OpType type, const std::string& suffix, OpCategory category,
                             const std::vector<TensorId>& inputs, const Attrs& attrs = {});
  TensorId emit1(OpType type, const std::string& suffix, OpCategory category,
                 const std::vector<TensorId>& inputs, const Attrs& attrs = {});

  // Contributes `grad` as (part of) the gradient of forward input i.
  void add_grad(size_t i, TensorId grad);
  const std::vector<std::vector<TensorId>>& input_grads() const { return input_grads_; }

 private:
  Graph& graph_;
  Op forward_;  // a copy: emitting ops may move the graph's op storage
  std::vector<TensorId> output_grads_;
  std::vector<bool> input_needs_grad_;
  std::vector<std::vector<TensorId>> input_grads_;
};

}  // namespace s2::ir
