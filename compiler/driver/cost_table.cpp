#include "compiler/driver/cost_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/lower/lower_op.h"
#include "isa/common/errors.h"
#include "simulator/timing/plan.h"

namespace s2::compiler {
namespace {

uint64_t predicted(const sim::timing::InstructionPlan& plan) {
  return std::max(plan.compute_cycles(), plan.roofline_cycles);
}

}  // namespace

schedule::OpCost op_cost_table(const target::TargetDesc& target) {
  struct Table {
    explicit Table(const target::TargetDesc& t) : target(t), models(t) {}
    const target::TargetDesc& target;
    sim::timing::PeArrayModels models;
    std::vector<std::pair<isa::Instruction, uint64_t>> known;
  };
  auto table = std::make_shared<Table>(target);
  return [table](const ir::Graph& graph, const ir::Op& op) -> uint64_t {
    const lower::DataAddresses zeros(graph.num_datas(), uint64_t{0});
    const isa::Instruction inst = lower::lower_op(graph, op, zeros);
    const auto same = std::find_if(table->known.begin(), table->known.end(),
                                   [&](const auto& k) { return k.first == inst; });
    if (same != table->known.end()) return same->second;
    const uint64_t cycles = predicted(sim::timing::plan_instruction(
        inst, table->target, table->models, sim::timing::TileDetail::Cycles));
    table->known.emplace_back(inst, cycles);
    return cycles;
  };
}

schedule::SwapCost swap_cost_table(const target::TargetDesc& target) {
  auto known = std::make_shared<std::map<uint64_t, uint64_t>>();
  return [&target, known](uint64_t bytes) -> uint64_t {
    if (const auto it = known->find(bytes); it != known->end()) return it->second;
    if (!target.host_link)
      throw UserError("--memory-budget: swapping activations needs a host link, and target '" +
                      target.name + "' has none (host_link in its configuration)");
    isa::Instruction copy(isa::Opcode::Copy);
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX));
    copy.set_operand(isa::Slot::Src, isa::TensorDesc::contiguous(0, isa::DType::U8, {n}));
    isa::TensorDesc host = isa::TensorDesc::contiguous(0, isa::DType::U8, {n});
    host.space = isa::MemSpace::Host;
    copy.set_operand(isa::Slot::Dst, host);
    const auto latency =
        static_cast<uint64_t>(std::ceil(target.host_link->latency_ns * target.clock_mhz * 1e-3));
    const uint64_t cycles = predicted(sim::timing::plan_instruction(copy, target)) + latency;
    known->emplace(bytes, cycles);
    return cycles;
  };
}

}  // namespace s2::compiler
