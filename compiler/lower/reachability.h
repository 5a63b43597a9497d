#pragma once
// Which earlier instructions each instruction of a program is guaranteed to wait for: its
// dependencies, theirs in turn, and for a `barrier` every instruction before it. The
// dependency builder uses it to drop dependencies that are already implied, the hazard
// checker to decide whether a conflict is covered.
//
// Memory linear in the program (it was an n^2/8-byte matrix, 800 MB for 80,000
// instructions); each query is answered from
//  * the latest barrier each instruction reaches: everything before it is waited for;
//  * a spanning tree of the dependencies (an instruction's parent is its latest dependency)
//    with binary-lifting ancestor tables: a dependency chain answers in O(log n);
//  * the lowest index each instruction reaches, which answers most unrelated pairs at once;
//  * otherwise a search back over the dependencies between the two instructions, pruned by
//    all three at every step, which stops at an instruction whose own last search found the
//    one it looks for (many readers of one early value along a chain off the tree search
//    once, not once each).
// Queries reuse scratch space: one object must not be queried from two threads at once.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace s2::lower {

class Reachability {
 public:
  // Appends the next instruction (index size()), waiting for `deps` (each < size()), or for
  // everything before it when `barrier`.
  void add(const std::vector<uint32_t>& deps, bool barrier);

  // True when instruction `later` cannot start before `earlier` has completed.
  bool waits_for(uint32_t later, uint32_t earlier) const;

  size_t size() const { return low_.size(); }

 private:
  // Whether the spanning tree's path from `node` to its root passes `ancestor`.
  bool tree_ancestor(uint32_t ancestor, uint32_t node) const;

  std::vector<uint32_t> dep_begin_{0};  // deps_[dep_begin_[i] .. dep_begin_[i + 1]): i's deps
  std::vector<uint32_t> deps_;
  std::vector<uint32_t> low_;              // the lowest index i reaches (i itself when none)
  std::vector<int64_t> barrier_;           // the latest barrier i reaches or is, -1 when none
  std::vector<uint32_t> depth_;            // depth in the spanning tree (roots 0)
  std::vector<std::vector<uint32_t>> up_;  // up_[k][i]: i's 2^k-th tree ancestor (a root: itself)
  mutable std::vector<uint32_t> seen_;     // search stamp per instruction
  mutable std::vector<uint32_t> found_;    // the last earlier instruction a search from i found
  mutable std::vector<uint32_t> stack_;
  mutable uint32_t stamp_ = 0;
};

}  // namespace s2::lower
