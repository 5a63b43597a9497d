// update-immediate: each weight update runs as soon as its gradient is complete and the
// anti-dependencies allow (every other reader of the weight — typically the backward-data op
// of the same layer — has run), so the weight gradient dies at the step after its creation
// instead of surviving to the end of the backward.
//
// An update is "armed" once the ops computing its non-persistent inputs (the gradient) have
// run. From then on, the ops it still waits for are urgent and go before anything else, and
// the update itself goes the moment it is ready.

#include <tuple>

#include "compiler/ops/registry.h"
#include "compiler/schedule/lifetimes.h"
#include "compiler/schedule/ready_list.h"
#include "compiler/schedule/schedulers.h"

namespace s2::schedule {
namespace {

class Immediate {
 public:
  explicit Immediate(const ir::Graph& graph)
      : graph_(graph),
        list_(graph),
        urgent_(graph.num_ops(), false),
        unarmed_(graph.num_ops(), 0),
        arms_(graph.num_ops()) {
    for (size_t i = 0; i < graph.num_ops(); ++i) {
      const ir::Op& op = graph.op(ir::OpId(i));
      if (op.category != ir::OpCategory::WeightUpdate) continue;
      for (ir::TensorId in : op.inputs) {
        if (!in.valid() || is_persistent(graph.data(graph.tensor(in).data))) continue;
        const ir::OpId trigger = computing_op(in);
        if (!trigger.valid()) continue;
        arms_[trigger.index()].push_back(ir::OpId(i));
        ++unarmed_[i];
      }
    }
  }

  std::vector<ir::OpId> run() {
    for (size_t i = 0; i < graph_.num_ops(); ++i)
      if (graph_.op(ir::OpId(i)).category == ir::OpCategory::WeightUpdate && unarmed_[i] == 0)
        arm(ir::OpId(i));
    while (!list_.done()) {
      const size_t k = argmin_ready(list_.ready(), [&](ir::OpId op) {
        return std::make_tuple(rank(op), list_.topo_index(op));
      });
      const ir::OpId taken = list_.ready()[k];
      list_.take(k);
      for (ir::OpId update : arms_[taken.index()])
        if (--unarmed_[update.index()] == 0) arm(update);
    }
    return list_.finish();
  }

 private:
  // The op that computes tensor t, looking through views (they compute nothing), or invalid
  // for a parameter.
  ir::OpId computing_op(ir::TensorId t) const {
    ir::OpId p = graph_.tensor(t).producer;
    while (p.valid() && ir::op_schema(graph_.op(p).type).fusion == ir::FusionClass::View)
      p = graph_.tensor(graph_.op(p).inputs.at(0)).producer;
    return p;
  }

  // Marks every ancestor of `update` not taken yet as urgent.
  void arm(ir::OpId update) {
    std::vector<ir::OpId> stack = list_.predecessors()[update.index()];
    while (!stack.empty()) {
      const ir::OpId op = stack.back();
      stack.pop_back();
      if (list_.taken(op) || urgent_[op.index()]) continue;
      urgent_[op.index()] = true;
      for (ir::OpId p : list_.predecessors()[op.index()])
        stack.push_back(p);
    }
  }

  int rank(ir::OpId op) const {
    const ir::OpCategory category = graph_.op(op).category;
    if (category == ir::OpCategory::WeightUpdate) return 0;
    if (urgent_[op.index()]) return 1;
    return category == ir::OpCategory::Forward ? 2 : 3;
  }

  const ir::Graph& graph_;
  ReadyList list_;
  std::vector<bool> urgent_;
  std::vector<size_t> unarmed_;              // per update: triggers not taken yet
  std::vector<std::vector<ir::OpId>> arms_;  // per op: the updates it is a trigger of
};

}  // namespace

std::vector<ir::OpId> schedule_update_immediate(const ir::Graph& graph) {
  return Immediate(graph).run();
}

}  // namespace s2::schedule
