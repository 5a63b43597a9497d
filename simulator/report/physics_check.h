#pragma once
// Sanity against physics (DESIGN.md §7): no instruction may beat its roofline bound
// max(MACs / PEs, bytes / peak DRAM bandwidth). A violation is a bug in the models, never in
// the input, so check_roofline() throws an InternalError naming the offending instructions.

#include <string>
#include <vector>

#include "simulator/report/run_result.h"

namespace s2::sim::report {

// Indices of the completed instructions whose simulated cycles are below their bound.
std::vector<uint32_t> roofline_violations(const RunResult& result);

// Throws InternalError listing the first violations, if any.
void check_roofline(const RunResult& result);

}  // namespace s2::sim::report
