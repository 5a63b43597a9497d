#pragma once
// The placement engine shared by the reuse planners (grad-reuse, greedy, search).
//
// Given an order of the items, it places each one in turn at an offset where it overlaps no
// already placed item that is live at a common step (time is fixed, only the address moves).
// The planners differ only in which orders they try: greedy takes one, search many.
// Placement keeps the placed items sorted by offset and scans them bottom-up, skipping the
// ones whose lifetime does not meet the new item's: O(n^2) cheap comparisons per placement
// and no per-item sorting or conflict lists, which is what lets search try many orders.

#include <cstdint>
#include <vector>

#include "compiler/memory/arena.h"

namespace s2::memory {

// Which gap an item goes into among those below the top of its placed conflicts that are
// large enough: the lowest one, or the smallest one (ties: lowest). When none is large
// enough the item goes on top of its conflicts.
enum class Fit : uint8_t { Lowest, Tightest };

struct Packing {
  std::vector<uint64_t> offsets;  // per item
  uint64_t extent = 0;            // arena size these offsets need
  // A machine-independent measure of the time the placement took: one unit per placed item
  // scanned, kItemWork per item placed (its bookkeeping costs about that many scans).
  uint64_t work = 0;
  static constexpr uint64_t kItemWork = 64;
};

class Packer {
 public:
  // Keeps a reference to `problem`, which must outlive the packer.
  explicit Packer(const ArenaProblem& problem);

  // `order` must be a permutation of 0..n-1 (checked: an internal error otherwise).
  Packing place(const std::vector<uint32_t>& order, Fit fit) const;
  // The same result as place(order, fit), reusing `earlier` — a placement with `fit` of an
  // order that agrees with `order` in its first `from` positions — for those positions
  // instead of placing them again. Placement is sequential, so the shared prefix lands at the
  // same offsets; only the rest costs work.
  Packing place_from(const std::vector<uint32_t>& order, Fit fit, const Packing& earlier,
                     size_t from) const;

  const ArenaProblem& problem() const { return problem_; }
  size_t size() const { return problem_.items.size(); }
  // Whether two items are live at a common step and both occupy space.
  bool conflict(uint32_t a, uint32_t b) const;

 private:
  const ArenaProblem& problem_;
};

// Deterministic orders the planners start from. Every one breaks ties by item index, so the
// result never depends on the sort algorithm.
enum class OrderKey : uint8_t {
  Size,      // decreasing size, then longer lifetime, then earlier start
  Area,      // decreasing size x lifetime length
  Length,    // decreasing lifetime length, then decreasing size
  Start,     // increasing first step, then decreasing size
  End,       // decreasing last step, then decreasing size
  Pressure,  // decreasing bytes of the items live at some step of its lifetime, itself included
};
const std::vector<OrderKey>& all_order_keys();
std::vector<uint32_t> make_order(const ArenaProblem& problem, OrderKey key);

// The greedy plan: decreasing size, each item in the lowest or tightest gap, whichever of
// the two packings is smaller (ties: Tightest, the classic best fit).
struct Placement {
  std::vector<uint32_t> order;
  Fit fit = Fit::Tightest;
  Packing packing;
};
Placement greedy_placement(const Packer& packer);

}  // namespace s2::memory
