// The packer (compiler/memory/packing.h) against a plain restatement of its contract: each
// item, in order, goes to the lowest (or tightest) gap among the placed items whose lifetimes
// meet its own, found by scanning every placed item by offset; its work is what that scan
// looks at. Same offsets, extent and work on random problems, with and without a reused
// prefix, with the scan replaced by the conflicts alone after 0, 1 and 7 placed items; then
// a size the scan of every placed item made quadratic.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "compiler/memory/packing.h"

namespace s2::memory {
namespace {

constexpr uint64_t kUnplaced = std::numeric_limits<uint64_t>::max();

Packing scan_every_placed_item(const ArenaProblem& problem, const std::vector<uint32_t>& order,
                               Fit fit, const Packing& earlier, size_t from) {
  struct Placed {
    uint64_t begin, end;
    uint32_t first, last;
  };
  const auto& items = problem.items;
  Packing p;
  p.offsets.assign(items.size(), kUnplaced);
  std::vector<Placed> placed;
  for (size_t k = 0; k < from; ++k) {
    const uint32_t i = order[k];
    p.offsets[i] = earlier.offsets[i];
    p.extent = std::max(p.extent, p.offsets[i] + items[i].size);
    if (items[i].size > 0)
      placed.push_back({p.offsets[i], p.offsets[i] + items[i].size, items[i].first, items[i].last});
  }
  std::sort(placed.begin(), placed.end(),
            [](const Placed& a, const Placed& b) { return a.begin < b.begin; });
  p.work = from;
  for (size_t k = from; k < items.size(); ++k) {
    const uint32_t i = order[k];
    const ArenaItem& item = items[i];
    if (item.size == 0) {
      p.offsets[i] = 0;
      continue;
    }
    uint64_t cursor = 0, chosen = kUnplaced, chosen_gap = kUnplaced;
    size_t scanned = 0;
    for (const Placed& q : placed) {
      ++scanned;
      if (q.first > item.last || item.first > q.last) continue;
      if (q.begin > cursor && q.begin - cursor >= item.size) {
        const uint64_t gap = q.begin - cursor;
        if (fit == Fit::Lowest) {
          chosen = cursor;
          break;
        }
        if (gap < chosen_gap) {
          chosen = cursor;
          chosen_gap = gap;
          if (gap == item.size) break;
        }
      }
      cursor = std::max(cursor, q.end);
    }
    p.work += Packing::kItemWork + scanned;
    const uint64_t offset = chosen != kUnplaced ? chosen : cursor;
    p.offsets[i] = offset;
    p.extent = std::max(p.extent, offset + item.size);
    const Placed mine{offset, offset + item.size, item.first, item.last};
    placed.insert(
        std::upper_bound(placed.begin(), placed.end(), mine,
                         [](const Placed& a, const Placed& b) { return a.begin < b.begin; }),
        mine);
  }
  return p;
}

TEST(MemoryPacking, PlacesAsAScanOfEveryPlacedItemWithTheSameWork) {
  std::mt19937 rng(11);
  auto pick = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 300; ++trial) {
    ArenaProblem problem;
    const uint32_t steps = pick(1, 60);
    for (uint32_t k = pick(1, 120); k > 0; --k) {
      ArenaItem item;
      // Few sizes, so that exact fits and equal offsets (ties in the scan order) are common;
      // some empty items.
      item.size = pick(0, 9) == 0 ? 0 : 64 * pick(1, 6);
      item.first = pick(0, steps - 1);
      item.last = std::min(steps - 1, item.first + pick(0, steps / 2));
      problem.items.push_back(item);
    }
    // The scan of every placed item up to a limit, the conflicts alone after it: from the
    // start, after a few, and never.
    const size_t limits[] = {0, 1, 7, Packer::kScanLimit};
    const Packer packer(problem, limits[trial % 4]);
    std::vector<uint32_t> order =
        make_order(problem, all_order_keys()[static_cast<size_t>(trial) % 6]);
    for (const Fit fit : {Fit::Lowest, Fit::Tightest}) {
      const Packing want = scan_every_placed_item(problem, order, fit, Packing{}, 0);
      const Packing got = packer.place(order, fit);
      ASSERT_EQ(got.offsets, want.offsets) << "trial " << trial;
      ASSERT_EQ(got.extent, want.extent) << "trial " << trial;
      ASSERT_EQ(got.work, want.work) << "trial " << trial;
      // Reuse a prefix of that placement for a shuffled rest, as the search does.
      const size_t from = pick(0, static_cast<uint32_t>(order.size()));
      std::vector<uint32_t> changed = order;
      std::shuffle(changed.begin() + static_cast<std::ptrdiff_t>(from), changed.end(), rng);
      const Packing want2 = scan_every_placed_item(problem, changed, fit, want, from);
      const Packing got2 = packer.place_from(changed, fit, got, from);
      ASSERT_EQ(got2.offsets, want2.offsets) << "trial " << trial << " from " << from;
      ASSERT_EQ(got2.work, want2.work) << "trial " << trial << " from " << from;
    }
  }
}

// 100,000 items each live for two steps, in a chain: each placement meets two or three
// others, so the packing takes a few hundred milliseconds; a scan of every placed item
// looks at 5 x 10^9 of them.
TEST(MemoryPacking, ManyShortLivedItemsMeetOnlyTheirNeighbours) {
  constexpr uint32_t kItems = 100000;
  ArenaProblem problem;
  for (uint32_t i = 0; i < kItems; ++i)
    problem.items.push_back({64, i, i + 1, isa::TensorRole::Activation});
  const Packer packer(problem);  // past kScanLimit, conflicts only
  const Packing p = packer.place(make_order(problem, OrderKey::Size), Fit::Tightest);
  EXPECT_EQ(p.extent, 128u);  // two at a time
  for (uint32_t i = 0; i + 1 < kItems; ++i)
    ASSERT_NE(p.offsets[i], p.offsets[i + 1]) << i;
}

}  // namespace
}  // namespace s2::memory
