#pragma once
// The placement engine shared by the reuse planners (grad-reuse, greedy, search).
//
// Given an order of the items, it places each one in turn at an offset where it overlaps no
// already placed item that is live at a common step (time is fixed, only the address moves).
// The planners differ only in which orders they try: greedy takes one, search many.
// Placement scans the placed items bottom-up by offset, skipping the ones whose lifetime does
// not meet the new item's: cheap comparisons and no per-item sorting or conflict lists, which
// is what lets search try many orders. Past scan_limit placed items it visits only the ones
// whose lifetime meets the new item's (found through a segment tree over steps), in the same
// order, so a placement costs its conflicts rather than every item placed (80,000 short-lived
// tensors took 3 s when every placed item was scanned). The result is the same either way.

#include <cstddef>
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
  // A machine-independent measure of the placement's effort: one unit per placed item a scan
  // of all of them by offset would look at before choosing (the items before the one where
  // it stops, conflicting or not), kItemWork per item placed. The search planner's budget is
  // counted in it, so it stays defined by that scan, however the placement finds the gaps.
  uint64_t work = 0;
  static constexpr uint64_t kItemWork = 64;
};

class Packer {
 public:
  // Past this many placed items, a placement visits only the conflicts: below it, a scan of
  // every placed item is faster than finding and sorting them.
  static constexpr size_t kScanLimit = 4096;

  // Keeps a reference to `problem`, which must outlive the packer. `scan_limit` is for tests.
  explicit Packer(const ArenaProblem& problem, size_t scan_limit = kScanLimit);
  ~Packer();
  Packer(const Packer&) = delete;
  Packer& operator=(const Packer&) = delete;

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
  class LiveIndex;

  const ArenaProblem& problem_;
  size_t scan_limit_;
  // Segment tree over steps [0, leaves_): node k's children are 2k and 2k + 1, leaf s is node
  // leaves_ + s. nodes_[node_begin_[i] .. node_begin_[i + 1]) are item i's canonical nodes.
  uint32_t leaves_ = 1;
  std::vector<uint32_t> node_begin_;
  std::vector<uint32_t> nodes_;
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
