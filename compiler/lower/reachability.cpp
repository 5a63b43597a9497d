#include "compiler/lower/reachability.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::lower {

void Reachability::add(const std::vector<uint32_t>& deps, bool barrier) {
  const auto index = static_cast<uint32_t>(low_.size());
  uint32_t low = index;
  int64_t reached_barrier = barrier ? static_cast<int64_t>(index) : -1;
  uint32_t parent = index;  // a root until a dependency says otherwise
  if (barrier) {
    low = 0;
  } else {
    for (uint32_t d : deps) {
      S2_CHECK(d < index, "reachability: instruction " + std::to_string(index) +
                              " depends on the later instruction " + std::to_string(d));
      deps_.push_back(d);
      low = std::min({low, d, low_[d]});
      reached_barrier = std::max(reached_barrier, barrier_[d]);
      if (parent == index || d > parent) parent = d;
    }
  }
  dep_begin_.push_back(static_cast<uint32_t>(deps_.size()));
  low_.push_back(low);
  barrier_.push_back(reached_barrier);
  depth_.push_back(parent == index ? 0 : depth_[parent] + 1);
  seen_.push_back(0);
  found_.push_back(UINT32_MAX);
  // One more ancestor level whenever the deepest path doubles, filled for every node.
  if (up_.empty() || (depth_.back() >> (up_.size() - 1)) > 1) {
    std::vector<uint32_t> level(index);
    for (uint32_t i = 0; i < index; ++i)
      level[i] = up_.empty() ? i : up_.back()[up_.back()[i]];
    up_.push_back(std::move(level));
  }
  up_[0].push_back(parent);
  for (size_t k = 1; k < up_.size(); ++k)
    up_[k].push_back(up_[k - 1][up_[k - 1][index]]);
}

bool Reachability::tree_ancestor(uint32_t ancestor, uint32_t node) const {
  if (depth_[node] < depth_[ancestor]) return false;
  uint32_t lift = depth_[node] - depth_[ancestor];
  for (size_t k = 0; lift != 0; ++k, lift >>= 1)
    if (lift & 1u) node = up_[k][node];
  return node == ancestor;
}

bool Reachability::waits_for(uint32_t later, uint32_t earlier) const {
  if (earlier >= later || later >= size()) return false;
  // A barrier at or after `earlier` that `later` reaches waits for it.
  if (barrier_[later] >= static_cast<int64_t>(earlier)) return true;
  if (earlier < low_[later]) return false;
  if (tree_ancestor(earlier, later) || found_[later] == earlier) return true;
  if (++stamp_ == 0) {  // wrapped: forget every old stamp
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  stack_.assign(1, later);
  while (!stack_.empty()) {
    const uint32_t u = stack_.back();
    stack_.pop_back();
    for (uint32_t k = dep_begin_[u]; k < dep_begin_[u + 1]; ++k) {
      const uint32_t d = deps_[k];
      if (d < earlier || earlier < low_[d]) continue;  // d cannot reach it
      if (barrier_[d] >= static_cast<int64_t>(earlier) || tree_ancestor(earlier, d) ||
          found_[d] == earlier) {
        found_[later] = earlier;
        return true;
      }
      if (seen_[d] == stamp_) continue;
      seen_[d] = stamp_;
      stack_.push_back(d);
    }
  }
  return false;
}

}  // namespace s2::lower
