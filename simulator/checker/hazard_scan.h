#pragma once
// Hazards the schedule does not cover: every pair of instructions whose DRAM bytes overlap,
// at least one of them writing, that no dependency path orders (dependency_closure.h). The
// result does not depend on the execution order, so it is computed once over the whole
// program.
//
// Cost: the pairs are all n^2 / 2, but ordered pairs are skipped with one bit test and the
// rest first compare their hulls; only pairs whose hulls overlap merge their byte sets.

#include <vector>

#include "isa/container/executable.h"
#include "simulator/checker/dependency_closure.h"
#include "simulator/checker/finding.h"
#include "simulator/checker/operand_access.h"

namespace s2::sim::checker {

// One finding per unordered conflicting pair, ordered by (later index, earlier index); the
// finding's instruction is the later one, `other` the earlier, `detail` RAW (the later reads
// what the earlier writes), WAR or WAW, and the range is the first overlapping interval.
std::vector<Finding> find_hazards(const isa::Executable& exe,
                                  const std::vector<InstructionAccess>& accesses,
                                  const DependencyClosure& closure);

}  // namespace s2::sim::checker
