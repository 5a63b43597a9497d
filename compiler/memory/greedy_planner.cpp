// `greedy`: size-ordered best fit. Buffers are placed by decreasing size, each into the gap
// between the buffers already placed and live at a common step where it fits best
// (packing.h). Large tensors first is what keeps the packing tight: the small ones fill the
// holes the large ones leave.

#include "compiler/memory/packing.h"
#include "compiler/memory/planner_registry.h"

namespace s2::memory {
namespace {

std::vector<uint64_t> plan_greedy(const ArenaProblem& problem, const PlanOptions&) {
  const Packer packer(problem);
  return greedy_placement(packer).packing.offsets;
}

}  // namespace

void register_greedy_planner(PlannerRegistry& r) {
  r.add("greedy", {"size-ordered best fit", plan_greedy});
}

}  // namespace s2::memory
