#pragma once
// The problem every arena planner solves, and the interface a planner implements.
//
// plan_memory() (planner.h) lays the persistent buffers out itself; what is left is a 2-D
// packing: each item is a rectangle fixed in time ([first, last], inclusive steps) whose
// address is free. A planner returns one offset per item, relative to the arena base, such
// that two items live at a common step never overlap. Sizes and offsets are multiples of
// the plan's alignment (the arena base is aligned too, so absolute addresses are).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/memory/buffer.h"

namespace s2::memory {

struct ArenaItem {
  uint64_t size = 0;  // already rounded up to the alignment
  uint32_t first = 0;
  uint32_t last = 0;  // inclusive, first <= last
  isa::TensorRole role = isa::TensorRole::Scratch;
};

struct ArenaProblem {
  std::vector<ArenaItem> items;
  uint64_t alignment = 64;
  uint64_t lower_bound = 0;  // max over steps of the live item bytes; no plan can beat it
};

// Returns one offset per item (aligned, relative to the arena base). Must be deterministic
// for a given problem and options (seed, budget): compiling twice gives the same binary.
using ArenaPlanner = std::function<std::vector<uint64_t>(const ArenaProblem&, const PlanOptions&)>;

// The arena size the offsets need: the largest offset + size (0 without items).
uint64_t arena_extent(const ArenaProblem& problem, const std::vector<uint64_t>& offsets);

}  // namespace s2::memory
