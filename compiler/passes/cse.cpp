#include "compiler/passes/cse.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

// True when an output of `op` shares the data of one of its inputs (a view or an in-place
// update): copying it unchanged after its input was replaced would leave it on the old data.
bool aliases_input(const Graph& g, const Op& op) {
  for (TensorId out : op.outputs)
    for (TensorId in : op.inputs)
      if (out.valid() && in.valid() && g.tensor(out).data == g.tensor(in).data) return true;
  return false;
}

class Cse : public GraphRewriter {
 public:
  explicit Cse(const Graph& in) : replaced_(in.num_tensors(), false) {}
  size_t merged() const { return merged_; }

 protected:
  std::optional<std::vector<TensorId>> rewrite(const Op& op, Context& ctx) override {
    const Graph& old = ctx.old_graph();
    if (!old.writes_in_place(op) && !old.has_side_effect(op)) {
      const auto [it, first] = seen_.emplace(key_of(op, ctx), op.outputs);
      if (!first) {
        std::vector<TensorId> earlier;
        for (TensorId t : it->second)
          earlier.push_back(ctx.map(t));
        ++merged_;
        return replace(op, earlier);
      }
    }
    // GraphRewriter copies a view (or in-place op) with the data of its OLD input; when that
    // input was replaced, the copy must be rebuilt on the replacement through shape inference.
    const bool input_replaced = std::any_of(op.inputs.begin(), op.inputs.end(), [&](TensorId t) {
      return t.valid() && replaced_[t.index()];
    });
    if (input_replaced && aliases_input(old, op)) {
      std::vector<TensorId> inputs;
      for (TensorId t : op.inputs)
        inputs.push_back(ctx.map(t));
      return replace(op, ctx.emit(op.type, op.name, op.category, inputs, op.attrs));
    }
    return std::nullopt;
  }

 private:
  // Type, attributes and the new graph's input ids: equal keys, equal outputs.
  static std::string key_of(const Op& op, const Context& ctx) {
    std::string key(op_type_name(op.type));
    for (TensorId t : op.inputs)
      key += " " + (t.valid() ? std::to_string(ctx.map(t).value) : "_");
    return key + " | " + op.attrs.text();
  }

  std::vector<TensorId> replace(const Op& op, std::vector<TensorId> by) {
    for (TensorId t : op.outputs)
      if (t.valid()) replaced_[t.index()] = true;
    return by;
  }

  std::map<std::string, std::vector<TensorId>> seen_;  // key -> first op's outputs (old ids)
  std::vector<bool> replaced_;                         // old tensors no longer copied as-is
  size_t merged_ = 0;
};

}  // namespace

PassResult common_subexpression_elimination(const Graph& in) {
  Cse cse(in);
  PassResult result = cse.run(in);
  if (cse.merged() == 0) return PassResult{in, false, "no common subexpressions"};
  // Two outputs of the step may now be one tensor; list it once.
  std::vector<TensorId> outputs;
  for (TensorId t : result.graph.outputs())
    if (std::find(outputs.begin(), outputs.end(), t) == outputs.end()) outputs.push_back(t);
  result.graph.set_outputs(std::move(outputs));
  result.summary = "merged " + std::to_string(cse.merged()) + " ops";
  return result;
}

}  // namespace s2::ir
