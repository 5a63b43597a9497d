// update-last: the forward, then the backward, then every weight update. The classic order of
// a framework that calls optimizer.step() after loss.backward(): all weight gradients are
// complete, and live together, before the first sgd runs.

#include <tuple>

#include "compiler/schedule/ready_list.h"
#include "compiler/schedule/schedulers.h"

namespace s2::schedule {
namespace {

// Forward ops never depend on backward ops, nor anything on an update, so picking by this
// phase rank first yields the three phases back to back.
int phase(ir::OpCategory category) {
  switch (category) {
    case ir::OpCategory::Forward:
      return 0;
    case ir::OpCategory::ActivationGrad:
    case ir::OpCategory::WeightGrad:
      return 1;
    case ir::OpCategory::WeightUpdate:
      return 2;
  }
  return 1;
}

}  // namespace

std::vector<ir::OpId> schedule_update_last(const ir::Graph& graph) {
  ReadyList list(graph);
  while (!list.done())
    list.take(argmin_ready(list.ready(), [&](ir::OpId op) {
      return std::make_tuple(phase(graph.op(op).category), list.topo_index(op));
    }));
  return list.finish();
}

}  // namespace s2::schedule
