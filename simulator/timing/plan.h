#pragma once
// The timing plan of a program: for every instruction, the unit that runs it, its tiles
// (DRAM loads and stores, PE and PPU cycles each; tiling.h), and its roofline (roofline.h).
// The SystemC top replays it: per tile it issues the loads to the DRAM model, advances the
// PE array and the PPU by the tile's cycles, and issues the stores.
//
// Control instructions (end, barrier) have no tiles. Errors: a tile that cannot fit is a
// UserError; plan_program prefixes it with the instruction index ("instruction 12: ...").

#include <cstdint>
#include <optional>
#include <vector>

#include "isa/container/executable.h"
#include "isa/encoding/instruction.h"
#include "isa/target/target_desc.h"
#include "simulator/timing/roofline.h"
#include "simulator/timing/tiling.h"

namespace s2::sim::timing {

struct InstructionPlan {
  isa::Unit unit = isa::Unit::Control;
  std::vector<Tile> tiles;
  uint64_t macs = 0;
  std::optional<isa::DType> mode;  // PE instructions: the multiplicands' element type
  uint64_t bytes = 0;              // roofline bytes: DRAM operand spans read plus written
  uint64_t host_bytes = 0;         // the same of host-memory operands (copies over the link)
  uint64_t roofline_cycles = 0;

  uint64_t pe_cycles() const;  // sums over the tiles
  uint64_t ppu_cycles() const;
  uint64_t compute_cycles() const;  // Tile::compute_cycles summed: the units' busy time
  uint64_t load_bytes() const;      // DRAM bytes of the tiles' loads
  uint64_t store_bytes() const;
  uint64_t host_load_bytes() const;   // host-memory bytes over the link: from the host
  uint64_t host_store_bytes() const;  // to the host
};

// Plans one instruction, building the PE array models of the target's dataflow. A PE
// instruction in an element type the array does not multiply, and a copy naming host memory on
// a target without a host link, are UserErrors.
InstructionPlan plan_instruction(const isa::Instruction& inst, const target::TargetDesc& target);
// The same with the models already built (plan_program builds them once); with
// TileDetail::Cycles the tiles leave out their DRAM accesses (tiling.h), so load_bytes() and
// store_bytes() are 0 and everything else is the same.
InstructionPlan plan_instruction(const isa::Instruction& inst, const target::TargetDesc& target,
                                 const PeArrayModels& models,
                                 TileDetail detail = TileDetail::Accesses);

std::vector<InstructionPlan> plan_program(const isa::Executable& exe,
                                          const target::TargetDesc& target);

}  // namespace s2::sim::timing
