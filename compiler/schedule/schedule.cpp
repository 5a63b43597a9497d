#include "compiler/schedule/schedule.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/schedule/schedulers.h"
#include "isa/common/errors.h"

namespace s2::schedule {
namespace {

using SchedulerFn = std::vector<ir::OpId> (*)(const ir::Graph&);

struct Entry {
  std::string name;
  SchedulerFn run;
};

// A new scheduler is a new file plus one line here.
const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = {
      {"update-last", schedule_update_last},
      {"update-immediate", schedule_update_immediate},
      {"memory-aware", schedule_memory_aware},
  };
  return entries;
}

}  // namespace

const std::vector<std::string>& scheduler_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Entry& e : registry())
      n.push_back(e.name);
    return n;
  }();
  return names;
}

std::vector<ir::OpId> schedule_ops(const ir::Graph& graph, const std::string& scheduler) {
  const auto& entries = registry();
  const auto it = std::find_if(entries.begin(), entries.end(),
                               [&](const Entry& e) { return e.name == scheduler; });
  if (it == entries.end()) {
    std::string known;
    for (const std::string& n : scheduler_names())
      known += (known.empty() ? "" : ", ") + n;
    throw UserError("--schedule: unknown scheduler '" + scheduler + "' (schedulers: " + known +
                    ")");
  }
  std::vector<ir::OpId> order = it->run(graph);
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
