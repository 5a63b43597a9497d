#pragma once
// The proof that a memory plan is safe to run, independent of the planner that made it.
//
// It checks that no two buffers live at a common step share a byte of DRAM (persistent
// buffers count as live at every step), that every address and the layout boundaries are
// multiples of the plan's alignment, that persistent buffers lie in [0, persistent_bytes),
// the others in the arena [arena_base, arena_base + arena_size), and that
// dram_size == arena_base + arena_size. Each buffer occupies its size rounded up to the
// alignment. Zero-size buffers occupy nothing and conflict with nothing.
//
// plan_memory() runs it after every plan; the lowering may run it again on a plan it changed.

#include <vector>

#include "compiler/memory/buffer.h"

namespace s2::memory {

// Throws InternalError on the first violation. An overlap names both buffers, a step at which
// both are live and their address ranges, e.g.
//   memory plan (greedy): 'conv1.out' [4096, 8192) and 'relu1.grad' [6144, 7168) are both
//   live at step 12 and overlap in address
// O(n log n) in the number of buffers.
void verify_plan(const std::vector<Buffer>& buffers, const MemoryPlan& plan);

}  // namespace s2::memory
