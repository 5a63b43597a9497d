#pragma once
// Which instructions are guaranteed to complete before another starts, from the program's
// explicit dependencies and its fences, as the controller enforces them
// (simulator/top/dependency_tracker.h): an instruction waits for its dependencies; a fence
// (barrier, end) waits for every earlier instruction; and no instruction issues while an
// earlier fence is incomplete, so it also waits for the latest fence before it. The checker
// keeps its own closure, independent of the compiler's, so a bug in one is not hidden by the
// other.
//
// One bit per (instruction, earlier instruction): n^2/8 bytes, 45 KB for 600 instructions.
// Dependencies on the instruction itself or later ones are ignored (the container validator
// rejects them; the controller would deadlock on them).

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
  size_t words_ = 0;            // 64-bit words per row
  std::vector<uint64_t> bits_;  // row i, bit j: i waits for j
};

}  // namespace s2::sim::checker
