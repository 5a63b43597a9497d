#pragma once
// Static memory planning: gives every buffer of a scheduled program a DRAM address.
//
// Persistent buffers (weights, optimizer and batch-norm state, inputs, labels) are laid out
// first, from address 0, in the order given, each at an aligned address. The arena for all
// other buffers starts at the aligned end of them; the planner named by PlanOptions::planner
// (planner_registry.h: none, grad-reuse, greedy, search) packs it. Every address and every
// reserved size is a multiple of PlanOptions::alignment.
//
// The returned plan always passes verify_plan(): plan_memory runs it after every plan, so
// a planner bug is an InternalError here, never a corrupted tensor at run time.

#include <vector>

#include "compiler/memory/buffer.h"
#include "compiler/memory/planner_registry.h"

namespace s2::memory {

// Throws UserError for an unknown planner (listing the known ones), an alignment that is
// not a power of two, or a negative or non-finite search budget; InternalError for a buffer
// whose lifetime ends before it starts, or sizes whose sum overflows.
MemoryPlan plan_memory(const std::vector<Buffer>& buffers, const PlanOptions& options);

// The same with the planners of `registry` instead of planner_registry(): for tests, and for
// tools that bring their own planners.
MemoryPlan plan_memory(const std::vector<Buffer>& buffers, const PlanOptions& options,
                       const PlannerRegistry& registry);

}  // namespace s2::memory
