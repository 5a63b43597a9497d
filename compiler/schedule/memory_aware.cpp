// memory-aware: a greedy list scheduler over live bytes. It tracks, for every non-persistent
// data node, whether it is live (written and not yet dead) and how many of its users are still
// to run, exactly as compute_lifetimes() will see the finished order. Among the ready ops it
// takes the one with the lowest key:
//   1. allocated - freed: the bytes of data it creates minus the bytes of data whose last
//      user it is (the live total after its step; freeing wins, so a weight update or the
//      last reader of a feature map goes as early as it can);
//   2. allocated: the smaller jump in the peak at its own step, where its inputs and outputs
//      are live together;
//   3. topological index, for a deterministic order that follows construction otherwise.

#include <cstdint>
#include <tuple>
#include <utility>

#include "compiler/schedule/lifetimes.h"
#include "compiler/schedule/ready_list.h"
#include "compiler/schedule/schedulers.h"

namespace s2::schedule {
namespace {

struct Touch {
  size_t data = 0;
  bool writes = false;
};

class MemoryAware {
 public:
  explicit MemoryAware(const ir::Graph& graph)
      : graph_(graph),
        list_(graph),
        touches_(graph.num_ops()),
        bytes_(graph.num_datas(), 0),
        users_left_(graph.num_datas(), 0),
        live_(graph.num_datas(), false),
        pinned_(graph.num_datas(), false) {
    std::vector<bool> written(graph.num_datas(), false);
    for (size_t i = 0; i < graph.num_ops(); ++i) {
      const ir::Op& op = graph.op(ir::OpId(i));
      for (ir::TensorId in : op.inputs)
        touch(i, in, false);
      for (ir::TensorId out : op.outputs)
        touch(i, out, true);
      for (const Touch& t : touches_[i]) {
        ++users_left_[t.data];
        written[t.data] = written[t.data] || t.writes;
      }
    }
    for (size_t d = 0; d < graph.num_datas(); ++d) {
      const ir::Data& data = graph.data(ir::DataId(d));
      bytes_[d] = is_persistent(data) ? 0 : static_cast<int64_t>(data_bytes(data));
      live_[d] = !written[d];  // initial contents: live from step 0 (compute_lifetimes)
    }
    std::vector<ir::TensorId> held = graph.outputs();
    if (graph.loss().valid()) held.push_back(graph.loss());
    for (ir::TensorId t : held)
      pinned_[graph.tensor(t).data.index()] = true;
  }

  std::vector<ir::OpId> run() {
    while (!list_.done()) {
      const size_t k = argmin_ready(list_.ready(), [&](ir::OpId op) {
        const auto [allocated, freed] = effect(op);
        return std::make_tuple(allocated - freed, allocated, list_.topo_index(op));
      });
      const ir::OpId op = list_.ready()[k];
      list_.take(k);
      for (const Touch& t : touches_[op.index()]) {
        live_[t.data] = true;
        --users_left_[t.data];
      }
    }
    return list_.finish();
  }

 private:
  // Records that op i uses tensor t's data, once per data node.
  void touch(size_t i, ir::TensorId t, bool writes) {
    if (!t.valid()) return;
    const size_t d = graph_.tensor(t).data.index();
    for (Touch& seen : touches_[i])
      if (seen.data == d) {
        seen.writes = seen.writes || writes;
        return;
      }
    touches_[i].push_back(Touch{d, writes});
  }

  // Bytes op would make live, and bytes that die after its step.
  std::pair<int64_t, int64_t> effect(ir::OpId op) const {
    int64_t allocated = 0, freed = 0;
    for (const Touch& t : touches_[op.index()]) {
      if (t.writes && !live_[t.data]) allocated += bytes_[t.data];
      if (users_left_[t.data] == 1 && !pinned_[t.data]) freed += bytes_[t.data];
    }
    return {allocated, freed};
  }

  const ir::Graph& graph_;
  ReadyList list_;
  std::vector<std::vector<Touch>> touches_;  // per op: the data nodes it reads or writes
  std::vector<int64_t> bytes_;               // per data node; 0 when persistent
  std::vector<size_t> users_left_;           // per data node: users not taken yet
  std::vector<bool> live_;
  std::vector<bool> pinned_;  // outputs and the loss: live to the end
};

}  // namespace

std::vector<ir::OpId> schedule_memory_aware(const ir::Graph& graph) {
  return MemoryAware(graph).run();
}

}  // namespace s2::schedule
