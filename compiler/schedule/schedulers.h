#pragma once
// The scheduler implementations behind schedule_ops(), one file each; schedule.cpp registers
// them by name. Each returns an order of every op; schedule_ops() checks it.

#include <vector>

#include "compiler/ir/graph.h"

namespace s2::schedule {

std::vector<ir::OpId> schedule_update_last(const ir::Graph& graph);       // update_last.cpp
std::vector<ir::OpId> schedule_update_immediate(const ir::Graph& graph);  // update_immediate.cpp
std::vector<ir::OpId> schedule_memory_aware(const ir::Graph& graph);      // memory_aware.cpp

}  // namespace s2::schedule
