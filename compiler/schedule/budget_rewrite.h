#pragma once
// The rewrites behind --memory-budget (fit_budget.h): which activations saved for the backward
// can be swapped or recomputed (candidates), and the two rewrites of the graph and its order
// that swap one to host memory or recompute it before its first backward use. The choice of
// which to apply lives in fit_budget.cpp.

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/schedule/lifetimes.h"

namespace s2::schedule::budget {

inline constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();

// Step of each op in `order`; kNever for ops not in it.
std::vector<uint32_t> steps_in(const ir::Graph& graph, const std::vector<ir::OpId>& order);

// Live DRAM bytes of the arena at each step, and the persistent bytes, of one order.
struct Occupancy {
  uint64_t persistent = 0;
  std::vector<uint64_t> live;  // per step
  uint32_t peak_step = 0;

  uint64_t peak() const { return live.empty() ? 0 : live[peak_step]; }
  uint64_t needed() const { return persistent + peak(); }
};

// The arena bytes live at each step of `order` and the persistent bytes, buffers aligned.
Occupancy occupancy(const ir::Graph& graph, const std::vector<ir::OpId>& order, uint64_t alignment);

// An activation that can be swapped: one forward writer, read by forward ops up to `last_fwd`
// and by backward ops from `first_bwd` on, its backward readers reaching it through `main` (the
// writer's dense output), through views the backward makes of it, or through views the forward
// made of `main` (reshapes, transposes, slices and broadcasts: a transformer's head splits),
// which the swap-in or recomputation makes again of its copy.
struct Candidate {
  ir::DataId data;
  ir::TensorId main;
  uint64_t bytes = 0;
  uint32_t last_fwd = 0;
  uint32_t first_bwd = kNever;
};

// The step's candidates, in data order.
std::vector<Candidate> candidates(const ir::Graph& graph, const std::vector<ir::OpId>& order);

// Swaps `c` out right after its last forward use and in right before the op now at step
// `in_before` (in (last_fwd + 1, first_bwd]). Returns the two copies.
std::pair<ir::OpId, ir::OpId> apply_swap(ir::Graph& graph, std::vector<ir::OpId>& order,
                                         const Candidate& c, uint32_t in_before);

// Whether `c` can be recomputed right before its first backward use, from exactly the values
// its producer read: the producer computes (not a copy or a view), writes nothing in place (so
// running it twice changes no state: batch norm's running statistics, dropout's counter), and
// each of its inputs is persistent or still live then, and written by nothing in between.
bool recomputable(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                  const Lifetimes& lifetimes, const std::vector<uint32_t>& step,
                  const Candidate& c);

// Recomputes `c` right before its first backward use: a clone of its producer (the backward's
// op, reading the same inputs) whose output replaces it there, the forward's copy dying after
// its last forward read. Returns the clone.
ir::OpId apply_recompute(ir::Graph& graph, std::vector<ir::OpId>& order, const Candidate& c);

}  // namespace s2::schedule::budget
