#include "compiler/passes/constant_folding.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/interp/interpreter.h"

namespace s2::ir {
namespace {

// `op` alone in a graph of its own, its inputs copied (views and contents) from `from`.
// Returns the outputs of the copy, per the op's outputs.
std::vector<TensorId> isolate(const Graph& from, const Op& op, const std::vector<TensorId>& inputs,
                              Graph* alone) {
  std::unordered_map<uint32_t, DataId> datas;
  std::unordered_map<uint32_t, TensorId> tensors;
  std::vector<TensorId> mapped;
  for (TensorId t : inputs) {
    if (!t.valid()) {
      mapped.push_back(TensorId());
      continue;
    }
    auto found = tensors.find(t.value);
    if (found == tensors.end()) {
      Tensor copy = from.tensor(t);
      auto data = datas.find(copy.data.value);
      if (data == datas.end())
        data = datas.emplace(copy.data.value, alone->add_data(from.data(copy.data))).first;
      copy.data = data->second;
      copy.producer = OpId();
      found = tensors.emplace(t.value, alone->add_tensor(std::move(copy))).first;
    }
    mapped.push_back(found->second);
  }
  return alone->add_op(op.type, alone->unique_name(op.name), op.category, mapped, op.attrs);
}

// A view with more elements than the data it reads (an expand: stride-0 axes). Folding it
// would store every repeat: a padding mask [N,1,1,T] read as [N,H,T,T] would grow H*T times.
bool broadcasts(const Graph& g, const Op& op) {
  for (TensorId out : op.outputs) {
    const Tensor& t = g.tensor(out);
    for (TensorId in : op.inputs)
      if (in.valid() && g.tensor(in).data == t.data && shape_numel(t.shape) > g.data(t.data).numel)
        return true;
  }
  return false;
}

class ConstantFolder : public GraphRewriter {
 public:
  size_t folded() const { return folded_; }

 protected:
  std::optional<std::vector<TensorId>> rewrite(const Op& op, Context& ctx) override {
    const Graph& old = ctx.old_graph();
    Graph& g = ctx.graph();
    std::vector<TensorId> inputs;
    bool all_constant = true;
    for (TensorId t : op.inputs) {
      inputs.push_back(ctx.map(t));
      if (!t.valid()) continue;
      all_constant = all_constant && g.data(g.tensor(inputs.back()).data).constant;
    }
    // An in-place write into a constant contradicts Data::constant; folding it would hide
    // the write, so it stays for whoever built the graph to see.
    if (all_constant && !old.writes_in_place(op) && !old.has_side_effect(op) &&
        !broadcasts(old, op)) {
      ++folded_;
      return fold(op, inputs, ctx);
    }
    return std::nullopt;
  }

 private:
  // The outputs as new constant parameters, each named like the tensor it replaces.
  std::vector<TensorId> fold(const Op& op, const std::vector<TensorId>& inputs, Context& ctx) {
    Graph& g = ctx.graph();
    Graph alone(g.name() + "." + op.name);
    const std::vector<TensorId> outs = isolate(g, op, inputs, &alone);
    Interpreter interpreter(alone);
    interpreter.run();
    std::vector<TensorId> constants;
    for (size_t k = 0; k < outs.size(); ++k) {
      if (!outs[k].valid()) {
        constants.push_back(TensorId());
        continue;
      }
      const Tensor& t = alone.tensor(outs[k]);
      constants.push_back(g.add_parameter(
          g.unique_name(ctx.old_graph().tensor(op.outputs[k]).name), TensorRole::Scratch, t.dtype,
          t.shape, std::make_shared<const HostArray>(interpreter.value(outs[k])), true));
    }
    return constants;
  }

  size_t folded_ = 0;
};

}  // namespace

PassResult constant_folding(const Graph& in) {
  ConstantFolder folder;
  PassResult result = folder.run(in);
  if (folder.folded() == 0) return PassResult{in, false, "nothing to fold"};
  result.summary = "folded " + std::to_string(folder.folded()) + " ops into constants";
  return result;
}

}  // namespace s2::ir
