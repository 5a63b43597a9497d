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

void PlannerRegistry::add(PlannerEntry entry) {
  S2_CHECK(find(entry.name) == nullptr,
           "planner registry: planner '" + entry.name + "' registered twice");
  S2_CHECK(static_cast<bool>(entry.plan),
           "planner registry: planner '" + entry.name + "' has no function");
  entries_.push_back(std::move(entry));
}

const PlannerEntry* PlannerRegistry::find(const std::string& name) const {
  for (const PlannerEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

const PlannerEntry& PlannerRegistry::get(const std::string& name) const {
  if (const PlannerEntry* e = find(name)) return *e;
  std::string known;
  for (const PlannerEntry& e : entries_)
    known += (known.empty() ? "" : ", ") + e.name;
  throw UserError("memory planner: unknown planner '" + name + "' (known planners: " + known + ")");
}

std::vector<std::string> PlannerRegistry::names() const {
  std::vector<std::string> out;
  for (const PlannerEntry& e : entries_)
    out.push_back(e.name);
  return out;
}

const PlannerRegistry& planner_registry() {
  static const PlannerRegistry registry = [] {
    PlannerRegistry r;
    register_none_planner(r);
    register_grad_reuse_planner(r);
    register_greedy_planner(r);
    register_search_planner(r);
    return r;
  }();
  return registry;
}

}  // namespace s2::memory
