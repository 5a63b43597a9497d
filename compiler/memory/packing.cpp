#include "compiler/memory/packing.h"

#include <algorithm>
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

#include "isa/common/errors.h"

namespace s2::memory {
namespace {

constexpr uint64_t kUnplaced = std::numeric_limits<uint64_t>::max();

// The placed items in the order the scan visits them, (offset, sequence), with ranks: the
// scan's position of an item is the number of placed items before it.
using RankTree =
    __gnu_pbds::tree<std::pair<uint64_t, uint64_t>, __gnu_pbds::null_type, std::less<>,
                     __gnu_pbds::rb_tree_tag, __gnu_pbds::tree_order_statistics_node_update>;

// The choice of an item's offset among the gaps between its conflicts, fed the conflicts
// bottom-up by offset: the lowest gap that is large enough, or the tightest (ties: lowest);
// when none is, on top of them all.
class GapSearch {
 public:
  GapSearch(uint64_t size, Fit fit) : size_(size), fit_(fit) {}

  // Takes the next conflict, [begin, end); true when the choice is made and the search stops.
  bool stops_at(uint64_t begin, uint64_t end) {
    if (begin > cursor_ && begin - cursor_ >= size_) {
      const uint64_t gap = begin - cursor_;
      if (fit_ == Fit::Lowest) {
        chosen_ = cursor_;
        return true;
      }
      if (gap < chosen_gap_) {
        chosen_ = cursor_;
        chosen_gap_ = gap;
        if (gap == size_) return true;  // an exact fit: nothing can be tighter or lower
      }
    }
    cursor_ = std::max(cursor_, end);
    return false;
  }

  uint64_t offset() const { return chosen_ != kUnplaced ? chosen_ : cursor_; }

 private:
  uint64_t size_;
  Fit fit_;
  uint64_t cursor_ = 0;  // everything below is covered by a conflict or already scanned
  uint64_t chosen_ = kUnplaced;
  uint64_t chosen_gap_ = kUnplaced;
};

// A placed item as the scan needs it, kept in a vector sorted by `begin`.
struct Placed {
  uint64_t begin, end;
  uint32_t first, last;
  uint32_t item;
};

}  // namespace

// One placement's view of the placed items by lifetime: each item sits in its canonical
// nodes of the packer's segment tree over steps (a linked list per node in one pool), and
// every node counts the items in its subtree, so a search for the items live at some step of
// an interval descends only into subtrees that hold any.
class Packer::LiveIndex {
 public:
  explicit LiveIndex(const Packer& packer)
      : packer_(packer),
        head_(2 * packer.leaves_, -1),
        count_(2 * packer.leaves_, 0),
        seen_(packer.problem_.items.size(), 0) {}

  void insert(uint32_t item) {
    for (uint32_t k = packer_.node_begin_[item]; k < packer_.node_begin_[item + 1]; ++k) {
      const uint32_t node = packer_.nodes_[k];
      pool_.push_back({item, head_[node]});
      head_[node] = static_cast<int32_t>(pool_.size() - 1);
      for (uint32_t x = node; x >= 1; x /= 2)
        ++count_[x];
    }
  }

  // The placed items live at some step of [first, last], each once, in no particular order.
  void live_during(uint32_t first, uint32_t last, std::vector<uint32_t>& out) {
    out.clear();
    ++stamp_;
    stack_.clear();
    stack_.push_back({1, 0, packer_.leaves_ - 1});
    while (!stack_.empty()) {
      const Visit v = stack_.back();
      stack_.pop_back();
      if (count_[v.node] == 0 || v.hi < first || v.lo > last) continue;
      for (int32_t e = head_[v.node]; e >= 0; e = pool_[static_cast<size_t>(e)].next) {
        const uint32_t item = pool_[static_cast<size_t>(e)].item;
        if (seen_[item] == stamp_) continue;
        seen_[item] = stamp_;
        out.push_back(item);
      }
      if (v.node < packer_.leaves_) {
        const uint32_t mid = v.lo + (v.hi - v.lo) / 2;
        stack_.push_back({2 * v.node + 1, mid + 1, v.hi});
        stack_.push_back({2 * v.node, v.lo, mid});
      }
    }
  }

 private:
  struct Entry {
    uint32_t item;
    int32_t next;
  };
  struct Visit {
    uint32_t node, lo, hi;  // the node covers steps [lo, hi]
  };

  const Packer& packer_;
  std::vector<int32_t> head_;    // per node: its newest entry in pool_, -1 when none
  std::vector<uint32_t> count_;  // per node: entries in its subtree, itself included
  std::vector<Entry> pool_;
  std::vector<uint32_t> seen_;  // per item: the stamp of the last search that found it
  uint32_t stamp_ = 0;
  std::vector<Visit> stack_;
};

Packer::Packer(const ArenaProblem& problem, size_t scan_limit)
    : problem_(problem), scan_limit_(scan_limit) {
  S2_CHECK(problem.items.size() < std::numeric_limits<uint32_t>::max(),
           "memory packing: too many items");
  uint32_t steps = 1;
  for (size_t i = 0; i < problem.items.size(); ++i) {
    S2_CHECK(problem.items[i].first <= problem.items[i].last,
             "memory packing: item " + std::to_string(i) + " ends before it starts");
    S2_CHECK(problem.items[i].last < std::numeric_limits<uint32_t>::max() / 4,
             "memory packing: item " + std::to_string(i) + " ends at too late a step");
    steps = std::max(steps, problem.items[i].last + 1);
  }
  while (leaves_ < steps)
    leaves_ *= 2;
  // Each item's canonical nodes: the fewest nodes whose step ranges tile its lifetime.
  node_begin_.reserve(problem.items.size() + 1);
  for (const ArenaItem& item : problem.items) {
    node_begin_.push_back(static_cast<uint32_t>(nodes_.size()));
    if (item.size == 0) continue;  // never placed in the index
    for (uint32_t lo = item.first + leaves_, hi = item.last + 1 + leaves_; lo < hi;
         lo /= 2, hi /= 2) {
      if (lo % 2 == 1) nodes_.push_back(lo++);
      if (hi % 2 == 1) nodes_.push_back(--hi);
    }
  }
  node_begin_.push_back(static_cast<uint32_t>(nodes_.size()));
}

Packer::~Packer() = default;

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
  placed.reserve(std::min(n, scan_limit_ + 1));
  for (size_t k = 0; k < from; ++k) {
    const uint32_t i = order[k];
    S2_CHECK(i < n && p.offsets[i] == kUnplaced && earlier.offsets[i] != kUnplaced,
             "memory packing: the reused prefix is not part of a placement (item " +
                 std::to_string(i) + ")");
    p.offsets[i] = earlier.offsets[i];
    p.extent = std::max(p.extent, p.offsets[i] + items[i].size);
    if (items[i].size > 0)
      placed.push_back(
          {p.offsets[i], p.offsets[i] + items[i].size, items[i].first, items[i].last, i});
  }
  std::sort(placed.begin(), placed.end(),
            [](const Placed& a, const Placed& b) { return a.begin < b.begin; });
  p.work = from;
  size_t k = from;
  auto check_next = [&](uint32_t i) {
    S2_CHECK(i < n && p.offsets[i] == kUnplaced,
             "memory packing: the order is not a permutation (item " + std::to_string(i) + ")");
  };
  // Up to scan_limit_ placed items: scan them all by offset.
  for (; k < n && placed.size() <= scan_limit_; ++k) {
    const uint32_t i = order[k];
    check_next(i);
    const ArenaItem& item = items[i];
    if (item.size == 0) {  // occupies nothing, conflicts with nothing
      p.offsets[i] = 0;
      continue;
    }
    GapSearch search(item.size, fit);
    size_t scanned = 0;
    for (const Placed& q : placed) {
      ++scanned;
      if (q.first > item.last || item.first > q.last) continue;
      if (search.stops_at(q.begin, q.end)) break;
    }
    p.work += Packing::kItemWork + scanned;
    const uint64_t offset = search.offset();
    p.offsets[i] = offset;
    p.extent = std::max(p.extent, offset + item.size);
    const Placed mine{offset, offset + item.size, item.first, item.last, i};
    placed.insert(
        std::upper_bound(placed.begin(), placed.end(), mine,
                         [](const Placed& a, const Placed& b) { return a.begin < b.begin; }),
        mine);
  }
  if (k == n) return p;

  // More: visit only the conflicts, found through the lifetimes, in the order the scan would,
  // which `sequence` numbers among items at one offset (a later item goes after those already
  // there); the work is the scan's, from the rank of the conflict it stops at.
  std::vector<uint64_t> sequence(n, 0);
  RankTree ranks;
  LiveIndex live(*this);
  for (size_t at = 0; at < placed.size(); ++at) {
    sequence[placed[at].item] = at;
    ranks.insert({placed[at].begin, at});
    live.insert(placed[at].item);
  }
  std::vector<uint32_t> conflicts;
  for (; k < n; ++k) {
    const uint32_t i = order[k];
    check_next(i);
    const ArenaItem& item = items[i];
    if (item.size == 0) {
      p.offsets[i] = 0;
      continue;
    }
    live.live_during(item.first, item.last, conflicts);
    std::sort(conflicts.begin(), conflicts.end(), [&](uint32_t a, uint32_t b) {
      return p.offsets[a] != p.offsets[b] ? p.offsets[a] < p.offsets[b] : sequence[a] < sequence[b];
    });
    GapSearch search(item.size, fit);
    int64_t stopped_at = -1;  // the conflict the search stops at, if it stops early
    for (uint32_t q : conflicts) {
      if (search.stops_at(p.offsets[q], p.offsets[q] + items[q].size)) {
        stopped_at = q;
        break;
      }
    }
    const auto q = static_cast<uint32_t>(stopped_at);
    const uint64_t scanned =
        stopped_at < 0 ? ranks.size() : ranks.order_of_key({p.offsets[q], sequence[q]}) + 1;
    p.work += Packing::kItemWork + scanned;
    const uint64_t offset = search.offset();
    p.offsets[i] = offset;
    p.extent = std::max(p.extent, offset + item.size);
    sequence[i] = n + k;  // after every item already at its offset
    ranks.insert({offset, sequence[i]});
    live.insert(i);
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
