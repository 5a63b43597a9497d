#include "compiler/schedule/schedule.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/schedule/schedulers.h"
#include "isa/common/errors.h"

namespace s2::schedule {
const SchedulerRegistry& scheduler_registry() {
  // A new scheduler is a new file (declared in schedulers.h) plus one line here; the first
  // is the default.
  static const SchedulerRegistry registry = [] {
    SchedulerRegistry r("scheduler");
    r.add("update-last", schedule_update_last);
    r.add("update-immediate", schedule_update_immediate);
    r.add("memory-aware", schedule_memory_aware);
    return r;
  }();
  return registry;
}

std::vector<ir::OpId> schedule_ops(const ir::Graph& graph, const std::string& scheduler) {
  const SchedulerFn& run = scheduler_registry().get(scheduler);
  std::vector<ir::OpId> order = run(graph);
  check_order(graph, order, "scheduler '" + scheduler + "'");
  return order;
}

void check_order(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                 const std::string& who) {
  const std::string where = who + " on graph '" + graph.name() + "'";
  S2_CHECK(order.size() == graph.num_ops(), where + ": " + std::to_string(order.size()) +
                                                " ops in the order, " +
                                                std::to_string(graph.num_ops()) + " in the graph");
  constexpr size_t kUnplaced = SIZE_MAX;
  std::vector<size_t> step(graph.num_ops(), kUnplaced);
  for (size_t s = 0; s < order.size(); ++s) {
    S2_CHECK(order[s].valid() && order[s].index() < graph.num_ops(),
             where + ": step " + std::to_string(s) + " names no op");
    S2_CHECK(step[order[s].index()] == kUnplaced,
             where + ": op '" + graph.op(order[s]).name + "' is scheduled twice");
    step[order[s].index()] = s;
  }
  const std::vector<std::vector<ir::OpId>> pred = graph.predecessors();
  for (size_t i = 0; i < pred.size(); ++i)
    for (ir::OpId p : pred[i])
      S2_CHECK(step[p.index()] < step[i], where + ": op '" + graph.op(ir::OpId(i)).name +
                                              "' (step " + std::to_string(step[i]) +
                                              ") runs before its predecessor '" + graph.op(p).name +
                                              "' (step " + std::to_string(step[p.index()]) + ")");
}

}  // namespace s2::schedule
