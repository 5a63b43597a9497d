// `grad-reuse`: activation gradients and weight gradients share space with each other by
// time-disjoint reuse; every other arena buffer keeps its own space. It isolates what reusing
// the short-lived backward tensors alone buys, as one column of the comparison table.

#include "compiler/memory/packing.h"
#include "compiler/memory/planner_registry.h"

namespace s2::memory {
namespace {

bool is_gradient(isa::TensorRole role) {
  return role == isa::TensorRole::Gradient || role == isa::TensorRole::WeightGradient;
}

std::vector<uint64_t> plan_grad_reuse(const ArenaProblem& problem, const PlanOptions&) {
  std::vector<uint64_t> offsets(problem.items.size());
  ArenaProblem gradients;
  gradients.alignment = problem.alignment;
  std::vector<size_t> gradient_items;
  uint64_t cursor = 0;  // the private region, below the shared gradient region
  for (size_t i = 0; i < problem.items.size(); ++i) {
    if (is_gradient(problem.items[i].role)) {
      gradients.items.push_back(problem.items[i]);
      gradient_items.push_back(i);
    } else {
      offsets[i] = cursor;
      cursor += problem.items[i].size;
    }
  }
  const Packer packer(gradients);
  const Placement shared = greedy_placement(packer);
  for (size_t k = 0; k < gradient_items.size(); ++k)
    offsets[gradient_items[k]] = cursor + shared.packing.offsets[k];
  return offsets;
}

}  // namespace

void register_grad_reuse_planner(PlannerRegistry& r) {
  r.add("grad-reuse",
        {"gradients and weight gradients share space; the rest its own", plan_grad_reuse});
}

}  // namespace s2::memory
