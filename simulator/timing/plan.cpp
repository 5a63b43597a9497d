#include "simulator/timing/plan.h"

#include <string>

#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"
#include "simulator/timing/attention_tiling.h"

namespace s2::sim::timing {

uint64_t InstructionPlan::pe_cycles() const {
  uint64_t total = 0;
  for (const Tile& t : tiles)
    total += t.pe_cycles;
  return total;
}

uint64_t InstructionPlan::ppu_cycles() const {
  uint64_t total = 0;
  for (const Tile& t : tiles)
    total += t.ppu_cycles;
  return total;
}

uint64_t InstructionPlan::load_bytes() const {
  uint64_t total = 0;
  for (const Tile& t : tiles)
    for (const DramAccess& a : t.loads)
      total += a.bytes;
  return total;
}

uint64_t InstructionPlan::store_bytes() const {
  uint64_t total = 0;
  for (const Tile& t : tiles)
    for (const DramAccess& a : t.stores)
      total += a.bytes;
  return total;
}

InstructionPlan plan_instruction(const isa::Instruction& inst, const target::TargetDesc& target,
                                 const PeArrayModels& models) {
  const PeArrayModel& model = models.for_instruction(inst);
  InstructionPlan plan;
  plan.unit = inst.info().unit;
  switch (plan.unit) {
    case isa::Unit::Pe:
      plan.tiles = inst.opcode() == isa::Opcode::AttnFwd || inst.opcode() == isa::Opcode::AttnBwd
                       ? tile_attention(inst, target, model)
                       : tile_pe_instruction(inst, target, model);
      break;
    case isa::Unit::Ppu:
    case isa::Unit::Dma:
      plan.tiles = tile_stream_instruction(inst, target);
      break;
    case isa::Unit::Control:
      break;
  }
  const Roofline r = roofline(inst, target);
  plan.macs = r.macs;
  plan.mode = isa::multiplicand_dtype(inst);
  plan.bytes = r.bytes();
  plan.roofline_cycles = r.cycles;
  return plan;
}

InstructionPlan plan_instruction(const isa::Instruction& inst, const target::TargetDesc& target) {
  return plan_instruction(inst, target, PeArrayModels(target));
}

std::vector<InstructionPlan> plan_program(const isa::Executable& exe,
                                          const target::TargetDesc& target) {
  const PeArrayModels models(target);
  std::vector<InstructionPlan> plans;
  plans.reserve(exe.instructions.size());
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    try {
      plans.push_back(plan_instruction(exe.instructions[i], target, models));
    } catch (const UserError& e) {
      throw UserError("instruction " + std::to_string(i) + ": " + e.what());
    }
  }
  return plans;
}

}  // namespace s2::sim::timing
