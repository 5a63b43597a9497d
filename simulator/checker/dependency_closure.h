#pragma once
// Which instructions are guaranteed to complete before another starts, from the program's
// explicit dependencies and its fences, as the controller enforces them
// (simulator/top/dependency_tracker.h): an instruction waits for its dependencies; a fence
// (barrier, end) waits for every earlier instruction; and no instruction issues while an
// earlier fence is incomplete, so it also waits for the latest fence before it. The checker
// keeps its own closure, independent of the compiler's, so a bug in one is not hidden by the
// other.
//
// Linear memory, no matrix: the closure is answered per query.
//  * across a fence: everything up to the latest fence before `later` is waited for;
//  * a spanning tree of the dependency graph (each instruction's parent is its latest
//    dependency), numbered in depth-first order, answers "earlier is a tree ancestor" in
//    O(1): a chain of dependencies, the common case, never searches;
//  * `low`, the lowest index an instruction waits for through its dependencies, answers most
//    unordered pairs in O(1);
//  * the rest is a depth-first search back from `later` over instructions after `earlier`
//    and after the fence, pruned by both tests at each step: at worst the instructions
//    between the two. Each instruction remembers the last instruction a search from it
//    found, and a search stops at an instruction that remembers the one it looks for: many
//    readers of one early write along a dependency chain off the tree cost one search, not
//    one each (40,000 took 0.91 s, quadratic, before).
// Dependencies on the instruction itself or later ones are ignored (the container validator
// rejects them; the controller would deadlock on them).
//
// Queries reuse scratch space: one closure must not be queried from two threads at once.

#include <cstdint>
#include <vector>

#include "isa/encoding/instruction.h"

namespace s2::sim::checker {

class DependencyClosure {
 public:
  explicit DependencyClosure(const std::vector<isa::Instruction>& program);

  // True when instruction `later` cannot start before `earlier` has completed.
  bool waits_for(uint32_t later, uint32_t earlier) const;
  // True when either instruction is ordered before the other.
  bool ordered(uint32_t a, uint32_t b) const { return a < b ? waits_for(b, a) : waits_for(a, b); }

 private:
  bool tree_ancestor(uint32_t ancestor, uint32_t node) const {
    return enter_[ancestor] <= enter_[node] && leave_[node] <= leave_[ancestor];
  }

  // deps_[dep_begin_[i] .. dep_begin_[i + 1]): instruction i's dependencies below it, after
  // its fence, deduplicated.
  std::vector<uint32_t> dep_begin_;
  std::vector<uint32_t> deps_;
  // i waits for every instruction <= fence_[i]: i - 1 for a fence, else the latest fence
  // before i (-1 when none). Between two fences, every instruction has the same value.
  std::vector<int64_t> fence_;
  std::vector<uint32_t> low_;  // the lowest index i reaches through dependencies (i if none)
  // Preorder number of i in the spanning tree, and one past the last of its subtree.
  std::vector<uint32_t> enter_, leave_;
  mutable std::vector<uint32_t> seen_;   // search stamp per instruction
  mutable std::vector<uint32_t> found_;  // the last earlier instruction a search from i found
  mutable std::vector<uint32_t> stack_;
  mutable uint32_t stamp_ = 0;
};

}  // namespace s2::sim::checker
