#include "simulator/checker/dependency_closure.h"

#include <algorithm>

namespace s2::sim::checker {
namespace {

bool is_fence(const isa::Instruction& inst) {
  return inst.opcode() == isa::Opcode::Barrier || inst.opcode() == isa::Opcode::End;
}

constexpr uint32_t kNoParent = UINT32_MAX;

}  // namespace

DependencyClosure::DependencyClosure(const std::vector<isa::Instruction>& program) {
  const auto n = static_cast<uint32_t>(program.size());
  fence_.assign(n, -1);
  low_.resize(n);
  dep_begin_.assign(n + 1, 0);
  std::vector<uint32_t> parent(n, kNoParent);
  int64_t last_fence = -1;
  for (uint32_t i = 0; i < n; ++i) {
    dep_begin_[i] = static_cast<uint32_t>(deps_.size());
    low_[i] = i;
    if (is_fence(program[i])) {
      fence_[i] = static_cast<int64_t>(i) - 1;
      last_fence = i;
      continue;
    }
    fence_[i] = last_fence;
    for (uint32_t d : program[i].deps) {
      // At or before the fence: already waited for. At or after i: ignored (see the header).
      if (static_cast<int64_t>(d) <= last_fence || d >= i) continue;
      deps_.push_back(d);
      low_[i] = std::min({low_[i], d, low_[d]});
      if (parent[i] == kNoParent || d > parent[i]) parent[i] = d;
    }
    const auto first = deps_.begin() + dep_begin_[i];
    std::sort(first, deps_.end());
    deps_.erase(std::unique(first, deps_.end()), deps_.end());
  }
  dep_begin_[n] = static_cast<uint32_t>(deps_.size());

  // Preorder numbering without a traversal: a parent always precedes its children, so the
  // subtree sizes come from one backward pass and each child takes the next free number of
  // its parent's range in a forward one.
  std::vector<uint32_t> size(n, 1);
  for (uint32_t i = n; i-- > 0;)
    if (parent[i] != kNoParent) size[parent[i]] += size[i];
  enter_.resize(n);
  leave_.resize(n);
  std::vector<uint32_t> next_child(n);
  uint32_t next_root = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (parent[i] == kNoParent) {
      enter_[i] = next_root;
      next_root += size[i];
    } else {
      enter_[i] = next_child[parent[i]];
      next_child[parent[i]] += size[i];
    }
    next_child[i] = enter_[i] + 1;
    leave_[i] = enter_[i] + size[i];
  }
  seen_.assign(n, 0);
  found_.assign(n, kNoParent);
}

bool DependencyClosure::waits_for(uint32_t later, uint32_t earlier) const {
  if (earlier >= later || later >= fence_.size()) return false;
  if (static_cast<int64_t>(earlier) <= fence_[later]) return true;
  // Both lie between the same two fences; only dependency paths inside that stretch remain.
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
      // d itself included; or a search from d found it before.
      if (tree_ancestor(earlier, d) || found_[d] == earlier) {
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

}  // namespace s2::sim::checker
