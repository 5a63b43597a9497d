#include "compiler/memory/planner.h"

#include <cmath>
#include <limits>

#include "compiler/memory/planner_registry.h"
#include "compiler/memory/verify_plan.h"
#include "isa/common/errors.h"

namespace s2::memory {
namespace {

void check_options(const PlanOptions& options) {
  const uint64_t a = options.alignment;
  if (a == 0 || (a & (a - 1)) != 0)
    throw UserError("memory plan: alignment " + std::to_string(a) +
                    " is not a power of two (use e.g. 64)");
  if (!std::isfinite(options.budget_ms) || options.budget_ms < 0)
    throw UserError("memory plan: search budget " + std::to_string(options.budget_ms) +
                    " ms must be a finite number >= 0");
}

// Sizes of real programs are far from 2^64, but a corrupted size must not wrap silently.
uint64_t checked_add(uint64_t a, uint64_t b, const Buffer& buffer) {
  S2_CHECK(a <= std::numeric_limits<uint64_t>::max() - b,
           "memory plan: address overflow at buffer '" + buffer.name + "' (" +
               std::to_string(buffer.size) + " bytes)");
  return a + b;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<Buffer>& buffers, const PlanOptions& options) {
  return plan_memory(buffers, options, planner_registry());
}

MemoryPlan plan_memory(const std::vector<Buffer>& buffers, const PlanOptions& options,
                       const PlannerRegistry& registry) {
  check_options(options);
  const Planner& planner = registry.get(options.planner);
  const uint64_t alignment = options.alignment;

  MemoryPlan plan;
  plan.planner = options.planner;
  plan.alignment = alignment;
  plan.address.assign(buffers.size(), 0);

  ArenaProblem problem;
  problem.alignment = alignment;
  std::vector<size_t> arena_buffers;  // buffer index of each arena item
  uint64_t cursor = 0;
  uint64_t host_cursor = 0;  // host buffers: one slot each (host memory is not the scarce one)
  uint64_t arena_total = 0;  // only to detect overflow before the planner adds offsets
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    S2_CHECK(b.first <= b.last, "memory plan: buffer '" + b.name + "' ends at step " +
                                    std::to_string(b.last) + " before it starts at step " +
                                    std::to_string(b.first));
    S2_CHECK(
        b.size <= std::numeric_limits<uint64_t>::max() - alignment,
        "memory plan: buffer '" + b.name + "' has an impossible size " + std::to_string(b.size));
    const uint64_t reserved = align_up(b.size, alignment);
    if (b.space == isa::MemSpace::Host) {
      plan.address[i] = host_cursor;
      host_cursor = checked_add(host_cursor, reserved, b);
    } else if (b.persistent) {
      plan.address[i] = cursor;
      cursor = checked_add(cursor, reserved, b);
    } else {
      arena_total = checked_add(arena_total, reserved, b);
      problem.items.push_back({reserved, b.first, b.last, b.role});
      arena_buffers.push_back(i);
    }
  }
  plan.persistent_bytes = cursor;
  plan.arena_base = cursor;
  S2_CHECK(cursor <= std::numeric_limits<uint64_t>::max() - arena_total,
           "memory plan: persistent and arena bytes together overflow the address space");
  plan.lower_bound = live_peak(buffers, alignment);
  problem.lower_bound = plan.lower_bound;

  const std::vector<uint64_t> offsets = planner.plan(problem, options);
  S2_CHECK(offsets.size() == problem.items.size(),
           "memory plan: planner '" + options.planner + "' returned " +
               std::to_string(offsets.size()) + " offsets for " +
               std::to_string(problem.items.size()) + " arena buffers");
  for (size_t k = 0; k < offsets.size(); ++k) {
    S2_CHECK(offsets[k] <= arena_total, "memory plan: planner '" + options.planner +
                                            "' put buffer '" + buffers[arena_buffers[k]].name +
                                            "' beyond the sum of all arena sizes");
    plan.address[arena_buffers[k]] = plan.arena_base + offsets[k];
  }
  plan.arena_size = arena_extent(problem, offsets);
  plan.dram_size = plan.arena_base + plan.arena_size;
  plan.host_size = host_cursor;
  verify_plan(buffers, plan);
  return plan;
}

}  // namespace s2::memory
