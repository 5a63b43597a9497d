#pragma once
// Hazards the schedule does not cover: pairs of instructions whose DRAM bytes overlap, at
// least one of them writing, that no dependency path orders (dependency_closure.h). The
// result does not depend on the execution order, so it is computed once over the whole
// program.
//
// Which pairs are examined: walking the program in order, an instruction is checked, for
// every byte it touches, against the latest earlier instruction that wrote that byte and,
// when it writes the byte, against the instructions that read it since that write. Any other
// earlier access that conflicts with it is either ordered before that write, and so before
// it, or conflicts with that write unordered: a hazard between those two, found when the
// write was checked. So a program has a hazard exactly when this reports one, and the first
// instruction with a hazard has every one of its hazards reported; a later instruction's
// hazards through an unordered write are reported at that write instead of once more for
// every instruction after it. Cost: each access visits the pieces of DRAM, as earlier
// writes cut it, that it covers; so a program of n instructions each touching a few tensors
// takes O(n log n), not the n^2 / 2 pairs of all-pairs.

#include <vector>

#include "isa/container/executable.h"
#include "simulator/checker/dependency_closure.h"
#include "simulator/checker/finding.h"
#include "simulator/checker/operand_access.h"

namespace s2::sim::checker {

// One finding per unordered conflicting pair examined, ordered by (later index, earlier
// index); the finding's instruction is the later one, `other` the earlier, `detail` RAW (the
// later reads what the earlier writes), WAR or WAW, and the range is the first overlapping
// interval.
std::vector<Finding> find_hazards(const isa::Executable& exe,
                                  const std::vector<InstructionAccess>& accesses,
                                  const DependencyClosure& closure);

}  // namespace s2::sim::checker
