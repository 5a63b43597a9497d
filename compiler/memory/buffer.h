#pragma once
// The memory planner's view of a program: buffers with a size and a lifetime in execution
// steps, and the plan that gives each an address. Shared by the schedulers (which compute
// lifetimes from an order), the planners (which assign addresses), the lowering (which
// writes the addresses into descriptors) and the reports.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container/executable.h"

namespace s2::memory {

struct Buffer {
  std::string name;
  isa::TensorRole role = isa::TensorRole::Scratch;
  uint64_t size = 0;        // bytes
  uint32_t first = 0;       // first step (index in the execution order) it is live at
  uint32_t last = 0;        // last step, inclusive
  bool persistent = false;  // weights, optimizer and batch-norm state, inputs, labels, constants
  // Host memory (a swapped-out tensor's slot behind the host link): planned in its own address
  // space, outside the arena and the persistent region.
  isa::MemSpace space = isa::MemSpace::Dram;
};

struct PlanOptions {
  std::string planner = "greedy";  // none, grad-reuse, greedy, search
  uint64_t alignment = 64;         // every address and every size is rounded up to this
  uint64_t seed = 1;               // for `search`
  double budget_ms = 200;          // for `search`: effort, in milliseconds of CPU time on the
                                   // reference machine, turned into a deterministic work cap
                                   // so the plan never depends on machine speed or load
};

struct MemoryPlan {
  std::string planner;
  uint64_t alignment = 64;
  std::vector<uint64_t> address;  // per buffer, absolute DRAM byte address
  uint64_t persistent_bytes = 0;  // persistent buffers occupy [0, persistent_bytes)
  uint64_t arena_base = 0;        // the rest live in [arena_base, arena_base + arena_size)
  uint64_t arena_size = 0;
  uint64_t lower_bound = 0;  // max over steps of the aligned bytes of live arena buffers
  uint64_t dram_size = 0;    // arena_base + arena_size
  uint64_t host_size = 0;    // host buffers, one slot each from host address 0

  double ratio() const {
    return lower_bound == 0 ? 1.0
                            : static_cast<double>(arena_size) / static_cast<double>(lower_bound);
  }
};

uint64_t align_up(uint64_t value, uint64_t alignment);

// The largest sum of aligned sizes of non-persistent DRAM buffers live at one step: no plan of
// these lifetimes can use a smaller arena.
uint64_t live_peak(const std::vector<Buffer>& buffers, uint64_t alignment);

}  // namespace s2::memory
