#pragma once
// Scheduling: the execution order of a training step's ops (`s2c compile --schedule NAME`).
// The order fixes every tensor's lifetime (lifetimes.h) and so the memory peak a planner can
// reach. Schedulers, by name:
//
//   update-last       the forward, then the backward, each in topological order, then every
//                     weight update (sgd): all weight gradients are live together at the end.
//   update-immediate  each weight's sgd runs as soon as its gradient is complete and every
//                     other reader of the weight has run (the anti-dependencies), so the weight
//                     gradient dies at once. Ops that still hold such an sgd back go first.
//   memory-aware      a list scheduler: among the ready ops, the one whose step leaves the
//                     fewest live bytes (most bytes freed minus allocated), then the one that
//                     allocates least, then topological order. Deterministic.
//
// Every order respects Graph::predecessors() (data and anti-dependency edges); each scheduler's
// result is checked before it is returned.

#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/common/registry.h"

namespace s2::schedule {

using SchedulerFn = std::vector<ir::OpId> (*)(const ir::Graph&);
using SchedulerRegistry = Registry<SchedulerFn>;

// The schedulers by name, in registration order (the first is the default).
const SchedulerRegistry& scheduler_registry();

// The order of every op of `graph` under `scheduler`. UserError for an unknown name, listing
// the known ones. Precondition: a well-formed, acyclic graph (InternalError otherwise).
std::vector<ir::OpId> schedule_ops(const ir::Graph& graph, const std::string& scheduler);

// InternalError naming `who` and the offending op unless `order` holds every op of `graph`
// exactly once and each op after all of its predecessors.
void check_order(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                 const std::string& who);

}  // namespace s2::schedule
