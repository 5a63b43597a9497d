#include "compiler/autodiff/backward_context.h"

#include "isa/common/errors.h"

namespace s2::ir {

BackwardContext::BackwardContext(Graph& graph, Op forward, std::vector<TensorId> output_grads,
                                 std::vector<bool> input_needs_grad)
    : graph_(graph),
      forward_(std::move(forward)),
      output_grads_(std::move(output_grads)),
      input_needs_grad_(std::move(input_needs_grad)),
      input_grads_(forward_.inputs.size()) {}

std::vector<TensorId> BackwardContext::emit(OpType type, const std::string& suffix,
                                            OpCategory category,
                                            const std::vector<TensorId>& inputs,
                                            const Attrs& attrs) {
  return graph_.add_op(type, graph_.unique_name(forward_.name + "." + suffix), category, inputs,
                       attrs);
}

TensorId BackwardContext::emit1(OpType type, const std::string& suffix, OpCategory category,
                                const std::vector<TensorId>& inputs, const Attrs& attrs) {
  const std::vector<TensorId> outs = emit(type, suffix, category, inputs, attrs);
  S2_CHECK(single_result(outs),
           "backward of '" + forward_.name + "': " + suffix + " has more than one output");
  return outs[0];
}

OpCategory BackwardContext::grad_category(size_t i) const {
  const Tensor& t = graph_.tensor(input(i));
  return graph_.data(t.data).role == TensorRole::Weight ? OpCategory::WeightGrad
                                                        : OpCategory::ActivationGrad;
}

void BackwardContext::add_grad(size_t i, TensorId grad) {
  S2_CHECK(i < input_grads_.size() && grad.valid(),
           "backward of '" + forward_.name + "': bad gradient for input " + std::to_string(i));
  input_grads_[i].push_back(grad);
}

}  // namespace s2::ir
