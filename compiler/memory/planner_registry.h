#pragma once
// Arena planners by name (STYLE.md, "Build components by name ... through a registry").
//
// A new planner is a new file defining register_<name>_planner() plus one line in
// planner_registry.cpp; `s2c --planner NAME` (its choices and help come from names()) and
// PlanOptions::planner then find it.

#include <string>
#include <vector>

#include "compiler/memory/arena.h"
#include "isa/common/registry.h"

namespace s2::memory {

struct Planner {
  std::string doc;  // one line, for --help
  ArenaPlanner plan;
};

// Planners by name. Asking for an unknown name is the registry's UserError
// ("unknown memory planner 'x'; known: none, grad-reuse, greedy, search").
using PlannerRegistry = Registry<Planner>;

// The registry with every planner registered.
const PlannerRegistry& planner_registry();

// One per planner file.
void register_none_planner(PlannerRegistry& r);
void register_grad_reuse_planner(PlannerRegistry& r);
void register_greedy_planner(PlannerRegistry& r);
void register_search_planner(PlannerRegistry& r);

}  // namespace s2::memory
