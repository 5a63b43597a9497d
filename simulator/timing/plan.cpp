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

uint64_t InstructionPlan::compute_cycles() const {
  uint64_t total = 0;
  for (const Tile& t : tiles)
    total += t.compute_cycles();
  return total;
}

namespace {

// Bytes of the tiles' loads (or stores) in DRAM or, with `host`, in host memory.
uint64_t moved_bytes(const std::vector<Tile>& tiles, bool stores, bool host) {
  uint64_t total = 0;
  for (const Tile& t : tiles)
    for (const DramAccess& a : stores ? t.stores : t.loads)
      if (a.host == host) total += a.bytes;
  return total;
}

}  // namespace

uint64_t InstructionPlan::load_bytes() const {
  return moved_bytes(tiles, false, false);
}

uint64_t InstructionPlan::store_bytes() const {
  return moved_bytes(tiles, true, false);
}

uint64_t InstructionPlan::host_load_bytes() const {
  return moved_bytes(tiles, false, true);
}

uint64_t InstructionPlan::host_store_bytes() const {
  return moved_bytes(tiles, true, true);
}

InstructionPlan plan_instruction(const isa::Instruction& inst, const target::TargetDesc& target,
                                 const PeArrayModels& models, TileDetail detail) {
  if (!target.host_link && inst.names_host_memory())
    throw UserError(std::string(inst.info().mnemonic) + " names host memory, but the target '" +
                    target.name + "' has no host_link (docs/target.md, \"Host link\")");
  const PeArrayModel& model = models.for_instruction(inst);
  InstructionPlan plan;
  plan.unit = inst.info().unit;
  switch (plan.unit) {
    case isa::Unit::Pe:
      plan.tiles = inst.opcode() == isa::Opcode::AttnFwd || inst.opcode() == isa::Opcode::AttnBwd
                       ? tile_attention(inst, target, model, detail)
                       : tile_pe_instruction(inst, target, model, detail);
      break;
    case isa::Unit::Ppu:
    case isa::Unit::Dma:
      plan.tiles = tile_stream_instruction(inst, target, detail);
      break;
    case isa::Unit::Control:
      break;
  }
  const Roofline r = roofline(inst, target);
  plan.macs = r.macs;
  plan.mode = isa::multiplicand_dtype(inst);
  plan.bytes = r.bytes();
  plan.host_bytes = r.host_bytes();
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
