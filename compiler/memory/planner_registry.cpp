#include "compiler/memory/planner_registry.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::memory {

uint64_t arena_extent(const ArenaProblem& problem, const std::vector<uint64_t>& offsets) {
  S2_CHECK(offsets.size() == problem.items.size(),
           "arena_extent: " + std::to_string(offsets.size()) + " offsets for " +
               std::to_string(problem.items.size()) + " items");
  uint64_t top = 0;
  for (size_t i = 0; i < offsets.size(); ++i)
    top = std::max(top, offsets[i] + problem.items[i].size);
  return top;
}

const PlannerRegistry& planner_registry() {
  static const PlannerRegistry registry = [] {
    PlannerRegistry r("memory planner");
    register_none_planner(r);
    register_grad_reuse_planner(r);
    register_greedy_planner(r);
    register_search_planner(r);
    return r;
  }();
  return registry;
}

}  // namespace s2::memory
