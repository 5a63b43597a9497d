#include "compiler/passes/dce.h"

#include <string>
#include <vector>

#include "compiler/ir/subgraph.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

bool interface_parameter(const Graph& g, const Tensor& t) {
  if (t.producer.valid()) return false;
  const TensorRole role = g.data(t.data).role;
  return role == TensorRole::Weight || role == TensorRole::Input || role == TensorRole::Label;
}

struct Liveness {
  std::vector<bool> op, tensor, data;
};

// Marks live ops by walking back from the roots through producers. An op is live as a whole,
// so all its outputs stay even when some are unused (the schema fixes the outputs).
Liveness find_live(const Graph& g) {
  Liveness live{std::vector<bool>(g.num_ops(), false), std::vector<bool>(g.num_tensors(), false),
                std::vector<bool>(g.num_datas(), false)};
  std::vector<TensorId> work;
  auto need_tensor = [&](TensorId t) {
    if (!t.valid() || live.tensor[t.index()]) return;
    live.tensor[t.index()] = true;
    work.push_back(t);
  };
  auto need_op = [&](OpId id) {
    if (live.op[id.index()]) return;
    live.op[id.index()] = true;
    for (TensorId in : g.op(id).inputs)
      need_tensor(in);
    for (TensorId out : g.op(id).outputs)
      need_tensor(out);
  };
  for (TensorId t : g.outputs())
    need_tensor(t);
  need_tensor(g.loss());
  for (size_t t = 0; t < g.num_tensors(); ++t)
    if (interface_parameter(g, g.tensor(TensorId(t)))) need_tensor(TensorId(t));
  for (size_t i = 0; i < g.num_ops(); ++i)
    if (g.has_side_effect(g.op(OpId(i)))) need_op(OpId(i));
  while (!work.empty()) {
    const TensorId t = work.back();
    work.pop_back();
    if (g.tensor(t).producer.valid()) need_op(g.tensor(t).producer);
  }
  for (size_t t = 0; t < g.num_tensors(); ++t)
    if (live.tensor[t]) live.data[g.tensor(TensorId(t)).data.index()] = true;
  return live;
}

size_t count_dead(const std::vector<bool>& live) {
  size_t n = 0;
  for (bool b : live)
    n += b ? 0 : 1;
  return n;
}

}  // namespace

PassResult dead_code_elimination(const Graph& in) {
  const Liveness live = find_live(in);
  const size_t dead_ops = count_dead(live.op);
  const size_t dead_tensors = count_dead(live.tensor);
  const size_t dead_datas = count_dead(live.data);
  if (dead_ops + dead_tensors + dead_datas == 0) return PassResult{in, false, "nothing dead"};

  // A rebuild that copies only live nodes, each in the original order so the printed graph
  // changes only where something was removed.
  PassResult result{copy_selected(in, Selection{live.op, live.tensor, live.data, {}, {}}, "dce"),
                    true, ""};
  result.summary = "removed " + std::to_string(dead_ops) + " ops, " + std::to_string(dead_tensors) +
                   " tensors, " + std::to_string(dead_datas) + " data nodes";
  return result;
}

}  // namespace s2::ir
