#include "compiler/autodiff/autodiff.h"

#include <algorithm>
#include <memory>

#include "compiler/autodiff/backward_context.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

class Autodiff {
 public:
  Autodiff(Graph& g, const OptimizerOptions& options) : g_(g), options_(options) {}

  AutodiffStats run() {
    if (!g_.loss().valid())
      throw UserError("autodiff: graph '" + g_.name() + "' has no loss to differentiate");
    const std::vector<OpId> forward = g_.topo_order();
    mark_needs_grad(forward);
    grads_.assign(g_.num_tensors(), {});
    seed_loss_gradient();
    for (auto it = forward.rbegin(); it != forward.rend(); ++it)
      backward_of(*it);
    add_updates();
    g_.mark_output(g_.loss());
    return stats_;
  }

 private:
  // A loss computed from loss terms (a weighted sum of softmax_ce outputs, such as GoogLeNet's
  // main and auxiliary heads) starts backpropagation from a constant d loss / d loss = 1 [1],
  // which reaches each term's softmax_ce_bwd as its `dloss` (scaled by the term's weight). A
  // softmax_ce that is itself the loss needs no seed: its backward assumes gradient 1.
  void seed_loss_gradient() {
    const Tensor loss = g_.tensor(g_.loss());  // a copy: adding the seed moves the tensors
    if (loss.producer.valid() && g_.op(loss.producer).type == OpType::SoftmaxCe) return;
    if (loss.dtype != DType::F32 || shape_numel(loss.shape) != 1)
      throw UserError("autodiff: the loss %" + loss.name + " is " +
                      shape_text(loss.dtype, loss.shape) + "; it must be a single f32 value");
    const TensorId seed = g_.add_parameter(
        g_.unique_name(loss.name + ".grad_seed"), TensorRole::Scratch, DType::F32, loss.shape,
        std::make_shared<const HostArray>(std::vector<float>{1.0f}), true);
    grads_.resize(g_.num_tensors());
    grads_.at(g_.loss().index()).push_back(seed);
  }

  bool is_weight(TensorId t) const {
    const Tensor& tensor = g_.tensor(t);
    return !tensor.producer.valid() && g_.data(tensor.data).role == TensorRole::Weight;
  }

  // An output written into an input's data by a non-view op (running statistics, the new
  // weight): state, not a value gradients flow through.
  bool updated_in_place(const Op& op, TensorId out) const {
    if (op_schema(op.type).fusion == FusionClass::View) return false;
    for (TensorId in : op.inputs)
      if (in.valid() && g_.tensor(in).data == g_.tensor(out).data) return true;
    return false;
  }

  // A tensor needs a gradient when it depends on a weight through f32 values.
  void mark_needs_grad(const std::vector<OpId>& order) {
    needs_.assign(g_.num_tensors(), false);
    for (size_t t = 0; t < g_.num_tensors(); ++t)
      needs_[t] = is_weight(TensorId(t));
    for (OpId id : order) {
      const Op& op = g_.op(id);
      if (op.category != OpCategory::Forward) continue;
      bool any = false;
      for (TensorId in : op.inputs)
        any = any || (in.valid() && needs_[in.index()]);
      if (!any) continue;
      for (TensorId out : op.outputs)
        if (out.valid() && g_.tensor(out).dtype == DType::F32 && !updated_in_place(op, out))
          needs_[out.index()] = true;
    }
  }

  // The summed gradient of `t`, adding accumulation ops where several flow in.
  TensorId gradient(TensorId t) {
    std::vector<TensorId>& parts = grads_.at(t.index());
    if (parts.size() <= 1) return parts.empty() ? TensorId() : parts[0];
    TensorId sum = parts[0];
    const OpCategory category = is_weight(t) ? OpCategory::WeightGrad : OpCategory::ActivationGrad;
    for (size_t k = 1; k < parts.size(); ++k) {
      const std::string name = g_.unique_name(g_.tensor(t).name + ".grad_sum");
      sum = g_.add(OpType::Add, name, category, {sum, parts[k]});
      ++stats_.accumulations;
    }
    parts.assign(1, sum);
    return sum;
  }

  void backward_of(OpId id) {
    const Op op = g_.op(id);  // a copy: adding ops moves the op storage
    if (op.category != OpCategory::Forward) return;
    const bool is_loss =
        std::find(op.outputs.begin(), op.outputs.end(), g_.loss()) != op.outputs.end();
    std::vector<TensorId> out_grads;
    bool any_grad = is_loss;
    for (TensorId out : op.outputs) {
      out_grads.push_back(out.valid() ? gradient(out) : TensorId());
      any_grad = any_grad || out_grads.back().valid();
    }
    if (!any_grad) return;
    std::vector<bool> needs;
    bool any_need = false;
    for (TensorId in : op.inputs) {
      needs.push_back(in.valid() && needs_[in.index()]);
      any_need = any_need || needs.back();
    }
    if (!any_need) return;
    const OpSchema& schema = op_schema(op.type);
    if (schema.backward == nullptr) {
      size_t first = 0;
      while (!needs[first])
        ++first;
      throw UserError("autodiff: op '" + op.name + "' (" + std::string(op_type_name(op.type)) +
                      ") has no backward rule, but a gradient must flow through it to its input '" +
                      input_spec(schema, first).name + "' (%" + g_.tensor(op.inputs[first]).name +
                      ")");
    }
    const size_t before = g_.num_ops();
    BackwardContext ctx(g_, op, out_grads, needs);
    schema.backward(ctx);
    stats_.backward_ops += g_.num_ops() - before;
    for (size_t i = 0; i < op.inputs.size(); ++i)
      for (TensorId grad : ctx.input_grads()[i])
        grads_.at(op.inputs[i].index()).push_back(grad);
  }

  void add_updates() {
    const size_t n = g_.num_tensors();
    for (size_t i = 0; i < n; ++i) {
      const TensorId w(i);
      if (!is_weight(w) || i >= grads_.size()) continue;
      const TensorId grad = gradient(w);
      if (!grad.valid()) continue;        // a weight the loss does not depend on stays as it is
      add_update(w, grad, g_.tensor(w));  // a copy: adding state reallocates the tensors
    }
  }

  // An optimizer-state buffer of `shape` named after the weight, zero at the start.
  TensorId zero_state(const Tensor& weight, const char* suffix, DType dtype, const Shape& shape) {
    return g_.add_parameter(
        g_.unique_name(weight.name + suffix), TensorRole::OptimizerState, dtype, shape,
        std::make_shared<HostArray>(dtype, static_cast<size_t>(shape_numel(shape))));
  }

  // The weight's sgd or adamw, with its zeroed optimizer state.
  void add_update(TensorId w, TensorId grad, Tensor weight) {
    std::vector<TensorId> inputs = {w, grad};
    Attrs attrs;
    attrs.set("lr", options_.lr).set("weight_decay", options_.weight_decay);
    if (options_.adamw()) {
      inputs.push_back(zero_state(weight, ".exp_avg", DType::F32, weight.shape));
      inputs.push_back(zero_state(weight, ".exp_avg_sq", DType::F32, weight.shape));
      inputs.push_back(zero_state(weight, ".step", DType::I32, {1}));
      attrs.set("beta1", options_.beta1).set("beta2", options_.beta2).set("eps", options_.eps);
    } else {
      if (options_.momentum != 0.0)
        inputs.push_back(zero_state(weight, ".velocity", DType::F32, weight.shape));
      attrs.set("momentum", options_.momentum);
    }
    const OpType type = options_.adamw() ? OpType::AdamW : OpType::Sgd;
    const std::vector<TensorId> outs =
        g_.add_op(type, g_.unique_name(weight.name + "." + std::string(op_type_name(type))),
                  OpCategory::WeightUpdate, inputs, attrs);
    g_.mark_output(outs[0]);
    ++stats_.updates;
  }

  Graph& g_;
  OptimizerOptions options_;
  std::vector<bool> needs_;
  std::vector<std::vector<TensorId>> grads_;
  AutodiffStats stats_;
};

}  // namespace

AutodiffStats build_training_step(Graph& graph, const OptimizerOptions& options) {
  return Autodiff(graph, options).run();
}

}  // namespace s2::ir
