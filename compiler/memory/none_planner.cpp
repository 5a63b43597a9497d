// `none`: every arena buffer gets its own space, in buffer order. The baseline the reuse
// planners are measured against, and the plan to fall back on when debugging a suspected
// reuse hazard: no two buffers ever share an address.

#include "compiler/memory/planner_registry.h"

namespace s2::memory {
namespace {

std::vector<uint64_t> plan_none(const ArenaProblem& problem, const PlanOptions&) {
  std::vector<uint64_t> offsets;
  offsets.reserve(problem.items.size());
  uint64_t cursor = 0;
  for (const ArenaItem& item : problem.items) {
    offsets.push_back(cursor);
    cursor += item.size;
  }
  return offsets;
}

}  // namespace

void register_none_planner(PlannerRegistry& r) {
  r.add("none", {"every tensor its own space (no reuse)", plan_none});
}

}  // namespace s2::memory
