#include "compiler/passes/cse.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

class Cse : public GraphRewriter {
 public:
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
        return earlier;
      }
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

  std::map<std::string, std::vector<TensorId>> seen_;  // key -> first op's outputs (old ids)
  size_t merged_ = 0;
};

}  // namespace

PassResult common_subexpression_elimination(const Graph& in) {
  Cse cse;
  PassResult result = cse.run(in);
  if (cse.merged() == 0) return PassResult{in, false, "no common subexpressions"};
  result.summary = "merged " + std::to_string(cse.merged()) + " ops";
  return result;
}

}  // namespace s2::ir
