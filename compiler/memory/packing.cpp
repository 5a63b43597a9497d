#include "compiler/memory/packing.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "isa/common/errors.h"

namespace s2::memory {
namespace {

constexpr uint64_t kUnplaced = std::numeric_limits<uint64_t>::max();

// A placed item as the scan needs it, kept in a vector sorted by `begin`.
struct Placed {
  uint64_t begin, end;
  uint32_t first, last;
};

}  // namespace

Packer::Packer(const ArenaProblem& problem) : problem_(problem) {
  S2_CHECK(problem.items.size() < std::numeric_limits<uint32_t>::max(),
           "memory packing: too many items");
  for (size_t i = 0; i < problem.items.size(); ++i)
    S2_CHECK(problem.items[i].first <= problem.items[i].last,
             "memory packing: item " + std::to_string(i) + " ends before it starts");
}

bool Packer::conflict(uint32_t a, uint32_t b) const {
  const ArenaItem &x = problem_.items[a], &y = problem_.items[b];
  return x.size > 0 && y.size > 0 && x.first <= y.last && y.first <= x.last;
}

Packing Packer::place(const std::vector<uint32_t>& order, Fit fit) const {
  return place_from(order, fit, Packing{}, 0);
}

Packing Packer::place_from(const std::vector<uint32_t>& order, Fit fit, const Packing& earlier,
                           size_t from) const {
  const auto& items = problem_.items;
  const size_t n = items.size();
  S2_CHECK(order.size() == n, "memory packing: an order of " + std::to_string(order.size()) +
                                  " items for " + std::to_string(n));
  S2_CHECK(
      from <= n && (from == 0 || earlier.offsets.size() == n),
      "memory packing: no earlier placement to reuse " + std::to_string(from) + " positions of");
  Packing p;
  p.offsets.assign(n, kUnplaced);
  std::vector<Placed> placed;  // sorted by begin; zero-size items are never in it
  placed.reserve(n);
  for (size_t k = 0; k < from; ++k) {
    const uint32_t i = order[k];
    S2_CHECK(i < n && p.offsets[i] == kUnplaced && earlier.offsets[i] != kUnplaced,
             "memory packing: the reused prefix is not part of a placement (item " +
                 std::to_string(i) + ")");
    p.offsets[i] = earlier.offsets[i];
    p.extent = std::max(p.extent, p.offsets[i] + items[i].size);
    if (items[i].size > 0)
      placed.push_back({p.offsets[i], p.offsets[i] + items[i].size, items[i].first, items[i].last});
  }
  std::sort(placed.begin(), placed.end(),
            [](const Placed& a, const Placed& b) { return a.begin < b.begin; });
  p.work = from;
  for (size_t k = from; k < n; ++k) {
    const uint32_t i = order[k];
    S2_CHECK(i < n && p.offsets[i] == kUnplaced,
             "memory packing: the order is not a permutation (item " + std::to_string(i) + ")");
    const ArenaItem& item = items[i];
    if (item.size == 0) {  // occupies nothing, conflicts with nothing
      p.offsets[i] = 0;
      continue;
    }
    uint64_t cursor = 0;  // everything below is covered by a conflict or already scanned
    uint64_t chosen = kUnplaced;
    uint64_t chosen_gap = kUnplaced;
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
          if (gap == item.size) break;  // an exact fit: nothing can be tighter or lower
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

const std::vector<OrderKey>& all_order_keys() {
  static const std::vector<OrderKey> keys = {OrderKey::Size,  OrderKey::Area, OrderKey::Length,
                                             OrderKey::Start, OrderKey::End,  OrderKey::Pressure};
  return keys;
}

namespace {

// For each item, the bytes of all items live at some step of its lifetime (itself included):
// those starting at or before its last step, minus those that ended before its first step.
std::vector<double> pressure(const ArenaProblem& problem) {
  const auto& items = problem.items;
  std::vector<std::pair<uint32_t, double>> starts, ends;  // (step, size), sorted by step
  for (const ArenaItem& item : items) {
    starts.emplace_back(item.first, static_cast<double>(item.size));
    ends.emplace_back(item.last, static_cast<double>(item.size));
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::vector<double> started(starts.size() + 1, 0.0), ended(ends.size() + 1, 0.0);
  for (size_t k = 0; k < starts.size(); ++k)
    started[k + 1] = started[k] + starts[k].second;
  for (size_t k = 0; k < ends.size(); ++k)
    ended[k + 1] = ended[k] + ends[k].second;
  std::vector<double> out;
  for (const ArenaItem& item : items) {
    const auto s = std::upper_bound(starts.begin(), starts.end(),
                                    std::make_pair(item.last, std::numeric_limits<double>::max()));
    const auto e = std::lower_bound(ends.begin(), ends.end(), std::make_pair(item.first, -1.0));
    out.push_back(started[static_cast<size_t>(s - starts.begin())] -
                  ended[static_cast<size_t>(e - ends.begin())]);
  }
  return out;
}

}  // namespace

std::vector<uint32_t> make_order(const ArenaProblem& problem, OrderKey key) {
  const auto& items = problem.items;
  const auto n = static_cast<uint32_t>(items.size());
  auto length = [&](uint32_t i) { return uint64_t{items[i].last} - items[i].first + 1; };
  // One numeric key per item, larger first, then decreasing size, then increasing index.
  std::vector<double> primary(n);
  if (key == OrderKey::Pressure) primary = pressure(problem);
  for (uint32_t i = 0; i < n; ++i) {
    const auto size = static_cast<double>(items[i].size);
    switch (key) {
      case OrderKey::Size:
        primary[i] = size;
        break;
      case OrderKey::Area:
        primary[i] = size * static_cast<double>(length(i));
        break;
      case OrderKey::Length:
        primary[i] = static_cast<double>(length(i));
        break;
      case OrderKey::Start:
        primary[i] = -static_cast<double>(items[i].first);
        break;
      case OrderKey::End:
        primary[i] = static_cast<double>(items[i].last);
        break;
      case OrderKey::Pressure:
        break;
    }
  }
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (primary[a] != primary[b]) return primary[a] > primary[b];
    if (items[a].size != items[b].size) return items[a].size > items[b].size;
    if (length(a) != length(b)) return length(a) > length(b);
    if (items[a].first != items[b].first) return items[a].first < items[b].first;
    return a < b;
  });
  return order;
}

Placement greedy_placement(const Packer& packer) {
  Placement best;
  best.order = make_order(packer.problem(), OrderKey::Size);
  best.fit = Fit::Tightest;
  best.packing = packer.place(best.order, Fit::Tightest);
  Packing lowest = packer.place(best.order, Fit::Lowest);
  if (lowest.extent < best.packing.extent) {
    lowest.work += best.packing.work;
    best.packing = std::move(lowest);
    best.fit = Fit::Lowest;
  } else {
    best.packing.work += lowest.work;
  }
  return best;
}

}  // namespace s2::memory
