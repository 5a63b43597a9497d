#include "compiler/schedule/lifetimes.h"

#include <algorithm>
#include <string>

#include "isa/common/errors.h"

namespace s2::schedule {

bool is_persistent(const ir::Data& data) {
  if (data.constant) return true;
  switch (data.role) {
    case ir::TensorRole::Weight:
    case ir::TensorRole::OptimizerState:
    case ir::TensorRole::Input:
    case ir::TensorRole::Label:
    case ir::TensorRole::State:
      return true;
    case ir::TensorRole::Activation:
    case ir::TensorRole::Gradient:
    case ir::TensorRole::WeightGradient:
    case ir::TensorRole::Scratch:
      return false;
  }
  return false;
}

uint64_t data_bytes(const ir::Data& data) {
  S2_CHECK(data.numel >= 0, "data '" + data.name + "' has a negative element count");
  return static_cast<uint64_t>(data.numel) * isa::dtype_bytes(data.dtype);
}

namespace {

constexpr uint32_t kNever = UINT32_MAX;

struct Span {
  uint32_t first_write = kNever;
  uint32_t first_use = kNever;
  uint32_t last_use = 0;
  bool used = false;
};

// Step of each op in `order`; InternalError unless it is a permutation of the graph's ops.
std::vector<uint32_t> steps_of(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
  S2_CHECK(order.size() == graph.num_ops(),
           "compute_lifetimes: the order of graph '" + graph.name() + "' has " +
               std::to_string(order.size()) + " ops, the graph " + std::to_string(graph.num_ops()));
  std::vector<uint32_t> step(graph.num_ops(), kNever);
  for (size_t s = 0; s < order.size(); ++s) {
    const ir::OpId id = order[s];
    S2_CHECK(id.valid() && id.index() < graph.num_ops(),
             "compute_lifetimes: step " + std::to_string(s) + " names no op of graph '" +
                 graph.name() + "'");
    S2_CHECK(step[id.index()] == kNever,
             "compute_lifetimes: op '" + graph.op(id).name + "' appears twice in the order");
    step[id.index()] = static_cast<uint32_t>(s);
  }
  return step;
}

}  // namespace

Lifetimes compute_lifetimes(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
  const std::vector<uint32_t> step = steps_of(graph, order);
  const uint32_t final_step = order.empty() ? 0 : static_cast<uint32_t>(order.size() - 1);

  std::vector<Span> spans(graph.num_datas());
  auto use = [&](ir::TensorId t, uint32_t s, bool writes) {
    if (!t.valid()) return;
    Span& span = spans.at(graph.tensor(t).data.index());
    span.used = true;
    span.first_use = std::min(span.first_use, s);
    span.last_use = std::max(span.last_use, s);
    if (writes) span.first_write = std::min(span.first_write, s);
  };
  for (size_t i = 0; i < graph.num_ops(); ++i) {
    const ir::Op& op = graph.op(ir::OpId(i));
    for (ir::TensorId in : op.inputs)
      use(in, step[i], false);
    for (ir::TensorId out : op.outputs)
      use(out, step[i], true);
  }
  // The host reads outputs and the loss after the last step.
  std::vector<ir::TensorId> held = graph.outputs();
  if (graph.loss().valid()) held.push_back(graph.loss());
  for (ir::TensorId t : held) {
    Span& span = spans.at(graph.tensor(t).data.index());
    span.used = true;
    span.last_use = final_step;
  }

  Lifetimes result;
  result.buffer_of_data.assign(graph.num_datas(), -1);
  for (size_t d = 0; d < graph.num_datas(); ++d) {
    const Span& span = spans[d];
    if (!span.used) continue;
    const ir::Data& data = graph.data(ir::DataId(d));
    memory::Buffer b;
    b.name = data.name;
    b.role = data.role;
    b.size = data_bytes(data);
    b.persistent = is_persistent(data);
    b.space = data.space;
    if (b.persistent) {
      b.first = 0;
      b.last = final_step;
    } else {
      // Views of the data are written after its producer, so the first write is the
      // producer. With no writer at all, the data has initial contents.
      b.first = span.first_write == kNever ? 0 : span.first_write;
      b.last = span.last_use;
      S2_CHECK(span.first_use >= b.first,
               "compute_lifetimes: data '" + data.name + "' is read at step " +
                   std::to_string(span.first_use) + " before its first write at step " +
                   std::to_string(b.first) + " (the order is not topological)");
    }
    result.buffer_of_data[d] = static_cast<int32_t>(result.buffers.size());
    result.buffers.push_back(std::move(b));
    result.data.push_back(ir::DataId(d));
  }
  return result;
}

}  // namespace s2::schedule
