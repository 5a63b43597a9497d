#include "compiler/ops/registry.h"
#include "compiler/passes/pass.h"
#include "isa/common/errors.h"

namespace s2::ir {

TensorId GraphRewriter::Context::map(TensorId old) const {
  if (!old.valid()) return TensorId();
  const TensorId t = tensor_map_.at(old.index());
  S2_CHECK(t.valid(), "rewriter: tensor '%" + in_.tensor(old).name + "' used before it is copied");
  return t;
}

std::vector<TensorId> GraphRewriter::Context::emit(OpType type, const std::string& name,
                                                   OpCategory category,
                                                   const std::vector<TensorId>& inputs,
                                                   const Attrs& attrs) {
  return out_.add_op(type, out_.unique_name(name), category, inputs, attrs);
}

TensorId GraphRewriter::copy_tensor(Context& ctx, TensorId old, OpId producer) {
  const Tensor& t = ctx.in_.tensor(old);
  DataId& data = ctx.data_map_.at(t.data.index());
  if (!data.valid()) data = ctx.out_.add_data(ctx.in_.data(t.data));
  Tensor copy = t;
  copy.data = data;
  copy.producer = producer;
  const TensorId id = ctx.out_.add_tensor(std::move(copy));
  ctx.tensor_map_.at(old.index()) = id;
  return id;
}

namespace {

bool aliases_an_input(const Graph& g, const Op& op) {
  for (TensorId out : op.outputs)
    for (TensorId input : op.inputs)
      if (out.valid() && input.valid() && g.tensor(out).data == g.tensor(input).data) return true;
  return false;
}

}  // namespace

PassResult GraphRewriter::run(const Graph& in) {
  PassResult result{Graph(in.name()), false, ""};
  Context ctx(in, result.graph);
  ctx.tensor_map_.assign(in.num_tensors(), TensorId());
  ctx.data_map_.assign(in.num_datas(), DataId());
  // Parameters first, in creation order.
  for (size_t i = 0; i < in.num_tensors(); ++i)
    if (!in.tensor(TensorId(i)).producer.valid()) copy_tensor(ctx, TensorId(i), OpId());
  for (OpId id : in.topo_order()) {
    const Op& op = in.op(id);
    if (std::optional<std::vector<TensorId>> replaced = rewrite(op, ctx)) {
      S2_CHECK(replaced->size() == op.outputs.size(),
               "rewriter: replacement of '" + op.name + "' has the wrong number of outputs");
      for (size_t k = 0; k < op.outputs.size(); ++k)
        if (op.outputs[k].valid()) ctx.tensor_map_.at(op.outputs[k].index()) = (*replaced)[k];
      result.changed = true;
      continue;
    }
    Op copy = op;
    for (TensorId& t : copy.inputs)
      t = ctx.map(t);
    // Views and in-place outputs follow their (possibly replaced) input: shape inference on
    // the mapped op gives their data, strides and offset in the new graph.
    std::vector<OutputSpec> specs;
    if (aliases_an_input(in, op))
      specs = op_schema(op.type).infer(InferContext(result.graph, copy));
    const OpId new_id(result.graph.num_ops());
    for (size_t k = 0; k < copy.outputs.size(); ++k) {
      TensorId& t = copy.outputs[k];
      if (!t.valid()) continue;
      if (k < specs.size() && specs[k].alias_input >= 0) {
        const Tensor& source =
            result.graph.tensor(copy.inputs.at(static_cast<size_t>(specs[k].alias_input)));
        Tensor view = in.tensor(t);
        view.data = source.data;
        view.strides =
            specs[k].strides.empty() ? contiguous_strides(specs[k].shape) : specs[k].strides;
        view.offset = specs[k].offset;
        view.producer = new_id;
        const TensorId old = t;
        t = result.graph.add_tensor(std::move(view));
        ctx.tensor_map_.at(old.index()) = t;
        ctx.data_map_.at(in.tensor(old).data.index()) = result.graph.tensor(t).data;
      } else {
        t = copy_tensor(ctx, t, new_id);
      }
    }
    result.graph.add_op_node(std::move(copy));
  }
  for (TensorId t : in.outputs())
    result.graph.mark_output(ctx.map(t));
  result.graph.set_loss(ctx.map(in.loss()));
  return result;
}

}  // namespace s2::ir
