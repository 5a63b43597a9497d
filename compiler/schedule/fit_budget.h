#pragma once
// Training under a memory budget (issue 20; docs/compiler.md, "Memory budget"): when the
// scheduled step needs more DRAM than `s2c compile --memory-budget SIZE`, activations saved for
// the backward are swapped out to host memory after their last forward use and back in before
// their first backward use, or recomputed before it from the inputs their producer read, so
// that the plan fits.
//
// Swapping a data node d: a `copy` with host=1 right after the last forward op that uses d
// (d's DRAM dies there) writes host data h; a `copy` of h with host=0 writes a new DRAM data d'
// at a step chosen before d's first backward use. Recomputing d: a clone of its producer
// (category activation_grad) writes d' right before that use. Either way every backward op's
// view of d is rewritten onto d' with the same layout, and the views the forward made of d that
// the backward reads are made again of d'. Copies move the bytes unchanged and a clone computes
// the same bits, so the step computes exactly the unconstrained one's numbers.
//
// The choice: a greedy heuristic (while the need exceeds the budget, the candidate live across
// the peak with the least exposed cost per byte, from the cost table) and, on steps of at most
// 64 candidates, the exact formulation of budget_ilp.h beside it; the fewer predicted cycles
// win. When the budget cannot be met: UserError with the smallest DRAM the allowed ways reach
// (every candidate treated just in time).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::schedule {

// Predicted accelerator cycles of one op on the target (the simulator's plan_instruction of
// its lowered instruction; compiler/driver/backend.cpp provides it).
using OpCost = std::function<uint64_t(const ir::Graph&, const ir::Op&)>;
// Predicted cycles of a copy of `bytes` between DRAM and host memory (one way).
using SwapCost = std::function<uint64_t(uint64_t bytes)>;

struct BudgetOptions {
  uint64_t budget = 0;      // bytes of DRAM; 0: no budget
  uint64_t alignment = 64;  // the planner's
  bool swap = true;         // the ways it may lower the need (--memory-budget-by)
  bool recompute = true;
  OpCost cost;
  SwapCost swap_cost;
  // The DRAM's peak bytes per accelerator cycle: a swap's DRAM side takes its bytes' time from
  // the compute sharing the DRAM (0: not counted).
  double dram_bytes_per_cycle = 0;
  // The DRAM the memory planner's plan of an order takes (persistent + arena); empty: the
  // lifetimes' need is taken as reached.
  std::function<uint64_t(const ir::Graph&, const std::vector<ir::OpId>&)> planned_dram;
};

struct SwappedTensor {
  std::string name;  // the data node swapped out (or recomputed)
  uint64_t bytes = 0;
  uint32_t out_step = 0;  // steps of the swap-out and swap-in in the new order (recomputed:
  uint32_t in_step = 0;   // the last forward read and the recomputation)
  uint64_t cycles = 0;    // recomputed: the cost table's cycles of the recomputation
};

struct BudgetResult {
  bool changed = false;
  uint64_t needed_before = 0;  // persistent + live peak, before
  uint64_t needed_after = 0;   // after the swaps
  std::vector<SwappedTensor> swapped;
  std::vector<SwappedTensor> recomputed;
  uint64_t kept_bytes = 0;  // candidates left in DRAM
  // The step's predicted cycles with the swaps, and without; both 0 when the step fits as
  // scheduled (nothing to choose between, so nothing is priced).
  uint64_t predicted_cycles = 0;
  uint64_t unconstrained_cycles = 0;
  // On a graph of few candidates: the fewest predicted cycles any assignment of keep, swap or
  // recompute (each just in time) reaches under the budget; 0 when not searched.
  uint64_t exhaustive_cycles = 0;
  // The greedy's predicted cycles (0: it found no way to fit) and, on a step of at most 64
  // candidates, the exact formulation's (0: not solved or not fitting); the result is the
  // fewer of the two.
  uint64_t greedy_cycles = 0;
  uint64_t ilp_cycles = 0;
  std::string summary;
};

// The persistent bytes plus the largest live bytes of the arena at one step, each buffer
// aligned: the DRAM a plan of these lifetimes needs at least.
uint64_t needed_dram(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                     uint64_t alignment);

// Rewrites `graph` and `order` so that needed_dram() (and options.planned_dram) fits
// options.budget. UserError when it cannot, naming the smallest budget the ways reach.
BudgetResult fit_memory_budget(ir::Graph& graph, std::vector<ir::OpId>& order,
                               const BudgetOptions& options);

}  // namespace s2::schedule
