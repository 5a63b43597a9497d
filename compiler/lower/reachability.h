#pragma once
// Which earlier instructions each instruction of a program is guaranteed to wait for: its
// dependencies, theirs in turn, and for a `barrier` every instruction before it. The
// dependency builder uses it to drop dependencies that are already implied, the hazard
// checker to decide whether a conflict is covered.
//
// One bit per (instruction, earlier instruction): n^2/8 bytes, 3 MiB for 5000 instructions.

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

  size_t size() const { return rows_.size(); }

 private:
  std::vector<std::vector<uint64_t>> rows_;  // row i: bit j set when i waits for j (j < i)
};

}  // namespace s2::lower
