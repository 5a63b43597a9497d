#include "compiler/autodiff/autodiff.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/numerics/low_precision.h"

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
        if (out.valid() && numerics::is_float_dtype(g_.tensor(out).dtype) &&
            !updated_in_place(op, out))
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
    std::vector<std::pair<TensorId, TensorId>> updates;  // weight, gradient
    const size_t n = g_.num_tensors();
    for (size_t i = 0; i < n; ++i) {
      const TensorId w(i);
      if (!is_weight(w) || i >= grads_.size()) continue;
      const TensorId grad = gradient(w);
      if (grad.valid()) updates.emplace_back(w, grad);  // no gradient: the weight stays as it is
    }
    const TensorId scale = options_.clip_grad_norm > 0.0 ? clip_scale(updates) : TensorId();
    for (const auto& [w, grad] : updates)
      add_update(w, grad, scale, g_.tensor(w));  // a copy: adding state reallocates the tensors
  }

  // Gradient clipping: each gradient's sum of squares, gathered into one [K] tensor, then
  // clip_scale. Returns the factor the updates take; the norm, clip_grad_norm.total_norm,
  // becomes a graph output.
  TensorId clip_scale(const std::vector<std::pair<TensorId, TensorId>>& updates) {
    if (updates.empty()) return TensorId();
    std::vector<TensorId> sums;
    for (const auto& [w, grad] : updates) {
      const size_t rank = g_.tensor(grad).shape.size();
      std::vector<int64_t> axes(rank);
      for (size_t d = 0; d < rank; ++d)
        axes[d] = static_cast<int64_t>(d);
      sums.push_back(g_.add(OpType::ReduceSumSq, g_.unique_name(g_.tensor(w).name + ".grad_sumsq"),
                            OpCategory::WeightUpdate, {grad}, Attrs{{"axes", axes}}));
    }
    const TensorId all = sums.size() == 1
                             ? sums[0]
                             : g_.add(OpType::Concat, g_.unique_name("grad_sumsq"),
                                      OpCategory::WeightUpdate, sums, Attrs{{"axis", int64_t{0}}});
    const std::vector<TensorId> outs =
        g_.add_op(OpType::ClipScale, g_.unique_name("clip_grad_norm"), OpCategory::WeightUpdate,
                  {all}, Attrs{{"max_norm", options_.clip_grad_norm}});
    g_.mark_output(outs[1]);
    stats_.clipped = true;
    return outs[0];
  }

  // An optimizer-state buffer of `shape` named after the weight, zero at the start.
  TensorId zero_state(const Tensor& weight, const char* suffix, DType dtype, const Shape& shape) {
    return g_.add_parameter(
        g_.unique_name(weight.name + suffix), TensorRole::OptimizerState, dtype, shape,
        std::make_shared<HostArray>(dtype, static_cast<size_t>(shape_numel(shape))));
  }

  // The weight's sgd or adamw, with its zeroed optimizer state (and clipping's grad_scale).
  void add_update(TensorId w, TensorId grad, TensorId scale, Tensor weight) {
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
    if (scale.valid()) {
      inputs.resize(options_.adamw() ? 5 : 3);  // sgd without momentum: no velocity
      inputs.push_back(scale);
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

Graph without_grad_clipping(const Graph& graph) {
  Graph g = graph;
  bool clipped = false;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    Op& op = g.mutable_op(OpId(i));
    if (op.type == OpType::ClipScale) clipped = true;
    if (op.type != OpType::Sgd && op.type != OpType::AdamW) continue;
    const size_t scale = op.type == OpType::Sgd ? 3 : 5;
    if (op.inputs.size() > scale) op.inputs[scale] = TensorId();
    while (op.inputs.size() > 2 && !op.inputs.back().valid())
      op.inputs.pop_back();
  }
  if (!clipped) return graph;
  std::vector<TensorId> outputs;
  for (TensorId t : g.outputs()) {
    const OpId producer = g.tensor(t).producer;
    if (!producer.valid() || g.op(producer).type != OpType::ClipScale) outputs.push_back(t);
  }
  g.set_outputs(std::move(outputs));
  return g;
}

AutodiffStats build_training_step(Graph& graph, const OptimizerOptions& options) {
  return Autodiff(graph, options).run();
}

}  // namespace s2::ir
