#include "simulator/checker/tensor_attribution.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace s2::sim::checker {

TensorAttribution::TensorAttribution(const std::vector<isa::TensorEntry>& tensors)
    : tensors_(tensors) {
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint32_t>> by_place;
  for (size_t i = 0; i < tensors.size(); ++i) {
    by_place[{tensors[i].addr, tensors[i].size}].push_back(static_cast<uint32_t>(i));
    max_size_ = std::max(max_size_, tensors[i].size);
  }
  groups_.reserve(by_place.size());
  for (auto& [place, entries] : by_place) {
    Group g;
    g.addr = place.first;
    g.size = place.second;
    g.entries = std::move(entries);
    index_lifetimes(g);
    groups_.push_back(std::move(g));
  }
}

void TensorAttribution::index_lifetimes(Group& g) const {
  for (uint32_t e : g.entries) {
    const isa::TensorEntry& t = tensors_[e];
    if (t.first > t.last) continue;  // never live
    g.by_first.emplace_back(t.first, e);
    g.cuts.push_back(t.first);
    g.cuts.push_back(t.last + uint64_t{1});
  }
  std::sort(g.by_first.begin(), g.by_first.end());
  std::sort(g.cuts.begin(), g.cuts.end());
  g.cuts.erase(std::unique(g.cuts.begin(), g.cuts.end()), g.cuts.end());
  if (g.cuts.size() < 2) return;
  const size_t slots = g.cuts.size() - 1;
  size_t leaves = 1;
  while (leaves < slots)
    leaves *= 2;
  g.nodes.resize(2 * leaves);
  auto slot = [&](uint64_t at) {
    return static_cast<size_t>(std::lower_bound(g.cuts.begin(), g.cuts.end(), at) - g.cuts.begin());
  };
  // Entries go in table order, so every node's list is sorted.
  for (uint32_t e : g.entries) {
    const isa::TensorEntry& t = tensors_[e];
    if (t.first > t.last) continue;
    size_t lo = slot(t.first) + leaves;
    size_t hi = slot(t.last + uint64_t{1}) + leaves;
    for (; lo < hi; lo /= 2, hi /= 2) {
      if (lo % 2 == 1) g.nodes[lo++].push_back(e);
      if (hi % 2 == 1) g.nodes[--hi].push_back(e);
    }
  }
}

TensorAttribution::GroupAnswer TensorAttribution::live(const Group& g, uint32_t instruction,
                                                       bool written,
                                                       std::vector<uint32_t>* readable) const {
  GroupAnswer out;
  if (g.nodes.empty() || instruction < g.cuts.front() || instruction >= g.cuts.back()) return out;
  const size_t leaves = g.nodes.size() / 2;
  const size_t s = static_cast<size_t>(std::upper_bound(g.cuts.begin(), g.cuts.end(), instruction) -
                                       g.cuts.begin() - 1);
  // The entries live at the instruction are those of the nodes on its leaf's path to the
  // root; take them lowest index first, as a merge of those sorted lists.
  struct Cursor {
    const std::vector<uint32_t>* list;
    size_t at;
  };
  std::vector<Cursor> path;
  for (size_t k = leaves + s; k >= 1; k /= 2)
    if (!g.nodes[k].empty()) path.push_back({&g.nodes[k], 0});
  if (written) {
    const auto it = std::lower_bound(g.by_first.begin(), g.by_first.end(),
                                     std::make_pair(instruction, uint32_t{0}));
    if (it != g.by_first.end() && it->first == instruction) out.lowest_fitting = it->second;
  }
  while (true) {
    Cursor* next = nullptr;
    for (Cursor& c : path)
      if (c.at < c.list->size() && (next == nullptr || (*c.list)[c.at] < (*next->list)[next->at]))
        next = &c;
    if (next == nullptr) break;
    const uint32_t e = (*next->list)[next->at++];
    if (out.lowest_live < 0) out.lowest_live = e;
    if (written) break;  // the lowest live entry and the one produced here are known
    if (!this->readable(e, instruction)) continue;
    if (out.lowest_fitting < 0) out.lowest_fitting = e;
    if (readable != nullptr) readable->push_back(e);
    if (readable == nullptr || readable->size() == kMaxReadable) break;
  }
  return out;
}

template <typename Visit>
void TensorAttribution::for_each_containing(uint64_t addr, Visit visit) const {
  // Groups starting in (addr - max_size, addr] are the only ones that can contain addr.
  const uint64_t lowest = addr >= max_size_ ? addr - max_size_ : 0;
  auto it = std::upper_bound(groups_.begin(), groups_.end(), addr,
                             [](uint64_t a, const Group& g) { return a < g.addr; });
  while (it != groups_.begin()) {
    --it;
    if (it->addr < lowest) break;
    if (addr - it->addr < it->size) visit(*it);
  }
}

TensorAttribution::Attribution TensorAttribution::attribute(uint64_t addr, uint64_t end,
                                                            uint32_t instruction, bool written,
                                                            bool want_readable) const {
  Attribution out;
  std::tuple<bool, bool, bool, uint64_t, uint32_t> best_key{};
  std::vector<uint32_t> group_readable;
  for_each_containing(addr, [&](const Group& g) {
    group_readable.clear();
    const GroupAnswer a = live(g, instruction, written, want_readable ? &group_readable : nullptr);
    if (a.lowest_live < 0) return;
    // Within a group only the role and the index differ: its best is the lowest entry whose
    // role fits, else its lowest live one. Smaller keys win: negate the preferences.
    const bool role_fits = a.lowest_fitting >= 0;
    const auto c = static_cast<uint32_t>(role_fits ? a.lowest_fitting : a.lowest_live);
    const bool holds_all = end - g.addr <= g.size;  // g.addr <= addr < end: a candidate
    const std::tuple<bool, bool, bool, uint64_t, uint32_t> key{!role_fits, !holds_all,
                                                               g.addr != addr, g.size, c};
    if (out.primary < 0 || key < best_key) {
      out.primary = c;
      best_key = key;
    }
    // Keep the kMaxReadable lowest indices over all groups, in order.
    std::vector<uint32_t>& r = out.readable;
    for (uint32_t e : group_readable) {
      if (r.size() == kMaxReadable && e > r.back()) break;
      r.insert(std::upper_bound(r.begin(), r.end(), e), e);
      if (r.size() > kMaxReadable) r.pop_back();
    }
  });
  return out;
}

bool TensorAttribution::readable(uint32_t tensor, uint32_t instruction) const {
  const isa::TensorEntry& t = tensors_[tensor];
  return t.first < instruction || t.has_data();
}

int64_t TensorAttribution::any_containing(uint64_t addr) const {
  int64_t first = -1;
  for_each_containing(addr, [&](const Group& g) {
    const int64_t lowest = g.entries.front();
    if (first < 0 || lowest < first) first = lowest;
  });
  return first;
}

}  // namespace s2::sim::checker
