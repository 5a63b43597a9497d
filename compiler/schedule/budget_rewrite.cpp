#include "compiler/schedule/budget_rewrite.h"

#include <algorithm>
#include <string>

#include "compiler/memory/buffer.h"
#include "compiler/ops/registry.h"

namespace s2::schedule::budget {
namespace {

bool is_backward(ir::OpCategory c) {
  return c == ir::OpCategory::ActivationGrad || c == ir::OpCategory::WeightGrad;
}

// Whether `t` is `main` or a view of it made by view ops alone (not a concat, which places
// other tensors into its data).
bool views_main(const ir::Graph& graph, ir::TensorId t, ir::TensorId main) {
  for (int depth = 0; depth < 64; ++depth) {
    if (t == main) return true;
    const ir::OpId p = graph.tensor(t).producer;
    if (!p.valid()) return false;
    const ir::Op& op = graph.op(p);
    if (ir::op_schema(op.type).fusion != ir::FusionClass::View || op.type == ir::OpType::Concat ||
        op.inputs.empty() || !op.inputs[0].valid())
      return false;
    t = op.inputs[0];
  }
  return false;
}

// The backward's readers of `c` read `replacement` (a dense copy of it: a swap-in or a
// recomputation) instead: every op in the order after c's last forward read that reads c.main
// reads `replacement`, every view made there of c's data views the replacement's data (the
// same layout), and every view the forward made of c.main that such an op reads is made again
// of `replacement` by new view ops (ActivationGrad), returned in the order they must run. Ops
// not in the order yet (the new ones) are left alone.
std::vector<ir::OpId> redirect_backward(ir::Graph& graph, const std::vector<ir::OpId>& order,
                                        const Candidate& c, ir::TensorId replacement) {
  const ir::DataId fresh = graph.tensor(replacement).data;
  const std::vector<uint32_t> step = steps_in(graph, order);
  const size_t old_ops = graph.num_ops();
  std::vector<ir::OpId> made;
  std::vector<std::pair<ir::TensorId, ir::TensorId>> again{{c.main, replacement}};
  // The view `t` of c.main made again of `replacement` (memoized: one new op per view).
  auto remake = [&](auto&& self, ir::TensorId t) -> ir::TensorId {
    for (const auto& [from, to] : again)
      if (from == t) return to;
    const ir::Op view = graph.op(graph.tensor(t).producer);  // a copy: adding ops moves them
    const ir::TensorId x = self(self, view.inputs[0]);
    const ir::TensorId y = graph.add(view.type, graph.unique_name(view.name + ".again"),
                                     ir::OpCategory::ActivationGrad, {x}, view.attrs);
    made.push_back(graph.tensor(y).producer);
    again.emplace_back(t, y);
    return y;
  };
  for (size_t i = 0; i < old_ops; ++i) {
    if (step[i] == kNever || step[i] <= c.last_fwd) continue;
    const size_t inputs = graph.op(ir::OpId(i)).inputs.size();
    for (size_t k = 0; k < inputs; ++k) {
      const ir::TensorId in = graph.op(ir::OpId(i)).inputs[k];
      if (!in.valid() || graph.tensor(in).data != c.data) continue;
      const ir::OpId p = graph.tensor(in).producer;
      const bool forward_view =
          in != c.main && p.valid() && step[p.index()] != kNever && step[p.index()] <= c.last_fwd;
      if (in == c.main || forward_view)
        graph.mutable_op(ir::OpId(i)).inputs[k] = remake(remake, in);
    }
    for (ir::TensorId out : graph.op(ir::OpId(i)).outputs)
      if (out.valid() && graph.tensor(out).data == c.data) graph.mutable_tensor(out).data = fresh;
  }
  return made;
}

// The copy op of a swap of data `name`: y = x into host memory (host=1) or back into DRAM.
ir::TensorId add_copy(ir::Graph& graph, ir::TensorId x, bool to_host, const std::string& name) {
  const std::string base = name + (to_host ? ".swap_out" : ".swap_in");
  ir::Attrs attrs;
  attrs.set("host", int64_t{to_host ? 1 : 0});
  return graph.add(ir::OpType::Copy, graph.unique_name(base), ir::OpCategory::Forward, {x}, attrs);
}

}  // namespace

std::vector<uint32_t> steps_in(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
  std::vector<uint32_t> step(graph.num_ops(), kNever);
  for (size_t s = 0; s < order.size(); ++s)
    step[order[s].index()] = static_cast<uint32_t>(s);
  return step;
}

Occupancy occupancy(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                    uint64_t alignment) {
  const Lifetimes l = compute_lifetimes(graph, order);
  Occupancy o;
  std::vector<int64_t> delta(order.size() + 1, 0);
  for (const memory::Buffer& b : l.buffers) {
    if (b.space != isa::MemSpace::Dram) continue;
    const uint64_t size = memory::align_up(b.size, alignment);
    if (b.persistent) {
      o.persistent += size;
      continue;
    }
    delta[b.first] += static_cast<int64_t>(size);
    delta[b.last + 1] -= static_cast<int64_t>(size);
  }
  o.live.resize(order.size());
  int64_t live = 0;
  for (size_t s = 0; s < order.size(); ++s) {
    live += delta[s];
    o.live[s] = static_cast<uint64_t>(live);
    if (o.live[s] > o.live[o.peak_step]) o.peak_step = static_cast<uint32_t>(s);
  }
  return o;
}

std::vector<Candidate> candidates(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
  const std::vector<uint32_t> step = steps_in(graph, order);
  struct Info {
    int writers = 0;
    ir::TensorId main;
    uint32_t last_fwd = 0;
    uint32_t first_bwd = kNever;
    bool fwd_read = false;
    bool blocked = false;  // a use the swap cannot follow
  };
  std::vector<Info> info(graph.num_datas());
  for (ir::TensorId t : graph.outputs())
    info[graph.tensor(t).data.index()].blocked = true;
  if (graph.loss().valid()) info[graph.tensor(graph.loss()).data.index()].blocked = true;
  for (size_t i = 0; i < graph.num_ops(); ++i) {
    const ir::Op& op = graph.op(ir::OpId(i));
    const bool view = ir::op_schema(op.type).fusion == ir::FusionClass::View;
    const uint32_t s = step[i];
    for (ir::TensorId out : op.outputs) {
      if (!out.valid()) continue;
      const ir::Tensor& t = graph.tensor(out);
      Info& d = info[t.data.index()];
      if (view) continue;  // a view writes nothing
      ++d.writers;
      if (op.category != ir::OpCategory::Forward) d.blocked = true;
      if (t.offset == 0 && t.contiguous() && t.numel() == graph.data(t.data).numel) d.main = out;
    }
    for (ir::TensorId in : op.inputs) {
      if (!in.valid()) continue;
      Info& d = info[graph.tensor(in).data.index()];
      if (op.category == ir::OpCategory::Forward) {
        d.fwd_read = true;
        d.last_fwd = std::max(d.last_fwd, s);
      } else if (is_backward(op.category)) {
        d.first_bwd = std::min(d.first_bwd, s);
      } else {
        d.blocked = true;  // read by a weight update
      }
    }
  }
  // A backward reader must reach the data through `main`, a view made in the backward, or a
  // view the forward made of `main`.
  for (size_t i = 0; i < graph.num_ops(); ++i) {
    const ir::Op& op = graph.op(ir::OpId(i));
    if (!is_backward(op.category)) continue;
    for (ir::TensorId in : op.inputs) {
      if (!in.valid()) continue;
      const ir::Tensor& t = graph.tensor(in);
      Info& d = info[t.data.index()];
      if (in == d.main) continue;
      if (t.producer.valid() && is_backward(graph.op(t.producer).category)) continue;
      if (!d.main.valid() || !views_main(graph, in, d.main)) d.blocked = true;
    }
  }
  std::vector<Candidate> out;
  for (size_t k = 0; k < graph.num_datas(); ++k) {
    const ir::Data& data = graph.data(ir::DataId(k));
    const Info& d = info[k];
    if (d.blocked || d.writers != 1 || !d.main.valid() || !d.fwd_read || d.first_bwd == kNever ||
        is_persistent(data) || data.space != isa::MemSpace::Dram ||
        graph.op(graph.tensor(d.main).producer).category != ir::OpCategory::Forward ||
        d.first_bwd <= d.last_fwd + 1)
      continue;
    out.push_back({ir::DataId(k), d.main, data_bytes(data), d.last_fwd, d.first_bwd});
  }
  return out;
}

std::pair<ir::OpId, ir::OpId> apply_swap(ir::Graph& graph, std::vector<ir::OpId>& order,
                                         const Candidate& c, uint32_t in_before) {
  const std::string name = graph.data(c.data).name;  // a copy: adding data moves the names
  const ir::TensorId host = add_copy(graph, c.main, true, name);
  const ir::TensorId back = add_copy(graph, host, false, name);
  const std::vector<ir::OpId> views = redirect_backward(graph, order, c, back);
  const ir::OpId out_op = graph.tensor(host).producer, in_op = graph.tensor(back).producer;
  order.insert(order.begin() + c.last_fwd + 1, out_op);
  order.insert(order.begin() + in_before + 1, in_op);  // one later: the swap-out came first
  order.insert(order.begin() + in_before + 2, views.begin(), views.end());
  return {out_op, in_op};
}

bool recomputable(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                  const Lifetimes& lifetimes, const std::vector<uint32_t>& step,
                  const Candidate& c) {
  const ir::OpId producer = graph.tensor(c.main).producer;
  const ir::Op& p = graph.op(producer);
  if (p.type == ir::OpType::Copy || ir::op_schema(p.type).fusion == ir::FusionClass::View ||
      graph.writes_in_place(p))
    return false;
  std::vector<ir::DataId> read;
  for (ir::TensorId in : p.inputs) {
    if (!in.valid()) continue;
    const ir::DataId d = graph.tensor(in).data;
    const int32_t b = lifetimes.buffer_of_data[d.index()];
    if (b < 0) return false;
    const memory::Buffer& buffer = lifetimes.buffers[static_cast<size_t>(b)];
    if (!buffer.persistent && buffer.last < c.first_bwd) return false;  // it would live longer
    read.push_back(d);
  }
  for (uint32_t s = step[producer.index()] + 1; s < c.first_bwd; ++s) {
    const ir::Op& op = graph.op(order[s]);
    if (ir::op_schema(op.type).fusion == ir::FusionClass::View) continue;
    for (ir::TensorId out : op.outputs)
      if (out.valid() && std::find(read.begin(), read.end(), graph.tensor(out).data) != read.end())
        return false;
  }
  return true;
}

ir::OpId apply_recompute(ir::Graph& graph, std::vector<ir::OpId>& order, const Candidate& c) {
  const ir::Op producer = graph.op(graph.tensor(c.main).producer);
  size_t k = 0;
  while (producer.outputs[k] != c.main)
    ++k;
  const std::vector<ir::TensorId> outs =
      graph.add_op(producer.type, graph.unique_name(producer.name + ".recompute"),
                   ir::OpCategory::ActivationGrad, producer.inputs, producer.attrs);
  const ir::TensorId again = outs.at(k);
  for (ir::TensorId out : outs)
    if (out.valid()) graph.mutable_data(graph.tensor(out).data).role = isa::TensorRole::Activation;
  const std::vector<ir::OpId> views = redirect_backward(graph, order, c, again);
  const ir::OpId clone = graph.tensor(again).producer;
  order.insert(order.begin() + c.first_bwd, clone);
  order.insert(order.begin() + c.first_bwd + 1, views.begin(), views.end());
  return clone;
}

}  // namespace s2::schedule::budget
