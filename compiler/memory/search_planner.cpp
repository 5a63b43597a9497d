// `search`: improves on greedy by hill climbing over placement orders.
//
// It starts from the greedy placement (so it is never worse than greedy), tries the other
// deterministic orders of packing.h with both fits, then repeatedly perturbs the best order
// and keeps the result when the arena does not grow (accepting equal arenas lets it walk
// across plateaus). Most moves aim at the buffers that touch the arena top: placing one of
// them earlier, or placing later a buffer that sits below one of them, is what can lower the
// top. It stops early once the arena equals the lower bound, which no plan can beat.
//
// Reproducibility: the budget is not measured on the clock. PlanOptions::budget_ms is
// converted into a cap on placement work (Packing::work, which counts the placement's inner
// loop iterations) at a fixed rate calibrated on the reference machine, so the plan depends
// only on the buffers, the seed and the budget — never on machine speed, load or timing
// jitter — and compiling twice gives the same binary. On a slower or faster machine the
// search takes proportionally longer or shorter than budget_ms, and finds the same plan. A
// budget of 0 gives exactly the greedy plan. Random numbers come from mt19937_64
// (fully specified by the standard) reduced by `%`, not from std::uniform_int_distribution
// (whose algorithm differs between standard libraries).

#include <algorithm>
#include <random>

#include "compiler/memory/packing.h"
#include "compiler/memory/planner_registry.h"

namespace s2::memory {
namespace {

// Packing::work units per millisecond of CPU time on the reference machine (2-core x86-64,
// g++ 12 -O2), measured with tests/bench/planner_bench: a search that does not reach the
// lower bound there takes about budget_ms, from ~200 to ~3000 arena buffers.
constexpr double kWorkPerMs = 800000.0;

class Search {
 public:
  Search(const Packer& packer, const PlanOptions& options)
      : packer_(packer), rng_(options.seed), best_(greedy_placement(packer)) {
    work_ = best_.packing.work;
    const double cap = options.budget_ms * kWorkPerMs;
    cap_ = cap >= 1e18 ? uint64_t{1000000000000000000} : static_cast<uint64_t>(cap);
  }

  Placement run() {
    for (const OrderKey key : all_order_keys()) {
      for (const Fit fit : {Fit::Tightest, Fit::Lowest}) {
        if (done()) return best_;
        try_order(make_order(packer_.problem(), key), fit);
      }
    }
    while (!done()) {
      std::vector<uint32_t> order = best_.order;
      Fit fit = best_.fit;
      // The mutation's own cost, linear in the items; also guarantees progress.
      work_ += Packing::kItemWork * (1 + order.size());
      size_t unchanged = mutate(order);  // positions before it keep their items
      if (unchanged == kNothing) continue;
      if (pick(16) == 0) {
        fit = fit == Fit::Lowest ? Fit::Tightest : Fit::Lowest;
        unchanged = 0;
      }
      try_order(std::move(order), fit, unchanged);
    }
    return best_;
  }

 private:
  bool done() const {
    return best_.packing.extent <= packer_.problem().lower_bound || work_ >= cap_ ||
           packer_.size() < 2;
  }

  static constexpr size_t kNothing = ~size_t{0};

  uint64_t pick(uint64_t n) { return rng_() % n; }

  void try_order(std::vector<uint32_t> order, Fit fit, size_t unchanged = 0) {
    Packing p = packer_.place_from(order, fit, best_.packing, unchanged);
    work_ += p.work;
    if (p.extent <= best_.packing.extent) best_ = {std::move(order), fit, std::move(p)};
  }

  // Moves the element at position `from` to position `to`, shifting those between.
  static void move(std::vector<uint32_t>& order, size_t from, size_t to) {
    if (from < to)
      std::rotate(order.begin() + static_cast<std::ptrdiff_t>(from),
                  order.begin() + static_cast<std::ptrdiff_t>(from) + 1,
                  order.begin() + static_cast<std::ptrdiff_t>(to) + 1);
    else if (to < from)
      std::rotate(order.begin() + static_cast<std::ptrdiff_t>(to),
                  order.begin() + static_cast<std::ptrdiff_t>(from),
                  order.begin() + static_cast<std::ptrdiff_t>(from) + 1);
  }

  // One random change to `order`. Returns the first position it changed, or kNothing when
  // the chosen move did not apply.
  size_t mutate(std::vector<uint32_t>& order) {
    const size_t n = order.size();
    const auto& items = packer_.problem().items;
    const auto& offsets = best_.packing.offsets;
    std::vector<size_t> position(n);
    for (size_t k = 0; k < n; ++k)
      position[order[k]] = k;
    std::vector<uint32_t> top;  // the items whose end is the arena top
    for (uint32_t i = 0; i < n; ++i)
      if (items[i].size > 0 && offsets[i] + items[i].size == best_.packing.extent) top.push_back(i);
    const uint32_t critical = top.empty() ? 0 : top[pick(top.size())];
    switch (pick(10)) {
      case 0:
      case 1:
      case 2:
      case 3: {  // place a top item earlier
        const size_t from = position[critical];
        if (from == 0) return kNothing;
        const size_t to = pick(from);
        move(order, from, to);
        return to;
      }
      case 4:
      case 5: {  // place a conflict placed before a top item after it
        std::vector<uint32_t> below;
        for (size_t k = 0; k < position[critical]; ++k)
          if (packer_.conflict(order[k], critical)) below.push_back(order[k]);
        if (below.empty()) return kNothing;
        const size_t from = position[below[pick(below.size())]];
        const size_t after = position[critical];
        move(order, from, after + pick(n - after));
        return from;
      }
      case 6:
      case 7: {  // swap two neighbours in the order
        const size_t a = pick(n - 1);
        const size_t b = a + 1 + pick(std::min<size_t>(n - a - 1, 8));
        std::swap(order[a], order[b]);
        return a;
      }
      default: {  // move any item anywhere
        const size_t from = pick(n);
        const size_t to = pick(n);
        move(order, from, to);
        return from == to ? kNothing : std::min(from, to);
      }
    }
  }

  const Packer& packer_;
  std::mt19937_64 rng_;
  Placement best_;
  uint64_t work_ = 0;
  uint64_t cap_ = 0;
};

std::vector<uint64_t> plan_search(const ArenaProblem& problem, const PlanOptions& options) {
  const Packer packer(problem);
  return Search(packer, options).run().packing.offsets;
}

}  // namespace

void register_search_planner(PlannerRegistry& r) {
  r.add("search", {"greedy improved by seeded hill climbing over placement orders", plan_search});
}

}  // namespace s2::memory
