#pragma once
// Arena planners by name (STYLE.md, "Build components by name ... through a registry").
//
// A new planner is a new file defining register_<name>_planner() plus one line in
// planner_registry.cpp; `s2c --planner NAME` and PlanOptions::planner then find it. Asking for
// a name nobody registered is a user error that lists the registered ones.

#include <string>
#include <vector>

#include "compiler/memory/arena.h"

namespace s2::memory {

struct PlannerEntry {
  std::string name;
  std::string doc;  // one line, for --help and error messages
  ArenaPlanner plan;
};

class PlannerRegistry {
 public:
  // Registering a name twice is an internal error.
  void add(PlannerEntry entry);
  // Throws UserError naming `name` and listing the known planners when none has that name.
  const PlannerEntry& get(const std::string& name) const;
  const PlannerEntry* find(const std::string& name) const;
  std::vector<std::string> names() const;  // in registration order

 private:
  std::vector<PlannerEntry> entries_;
};

// The registry with every planner registered.
const PlannerRegistry& planner_registry();

// One per planner file.
void register_none_planner(PlannerRegistry& r);
void register_grad_reuse_planner(PlannerRegistry& r);
void register_greedy_planner(PlannerRegistry& r);
void register_search_planner(PlannerRegistry& r);

}  // namespace s2::memory
