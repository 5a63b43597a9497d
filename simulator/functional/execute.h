#pragma once
// The functional datapath of the simulator: one instruction's effect on the DRAM image, with
// real fp32 numbers on a Datapath (the PE GEMM and the PPU lanes: C++ models or RTL). The
// numerics are those of isa/numerics/ (DESIGN.md §6: round to nearest-even, subnormals
// flushed, the PE array's K-tiled accumulation), which the compiler's reference interpreter
// uses too, so an executable run here in program order leaves the same bits in every tensor
// as the interpreter with the same K-tile. Values are flushed as they are read from the DRAM
// image and flushed, NaNs made canonical, as they are written (dram_image.h).
//
// Contract: the instruction is first checked with isa::check_instruction (a malformed one is
// a UserError listing its problems); data-dependent faults (a label or pooling index out of
// range, a descriptor outside DRAM) are UserErrors naming the mnemonic. All inputs are
// gathered before any output is written. Dependencies are not consulted: the caller (the
// controller, or a test running program order) decides when an instruction may run.

#include <string>
#include <vector>

#include "isa/common/registry.h"
#include "isa/container/executable.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void execute_instruction(const isa::Instruction& inst, DramImage& image, Datapath& dp);

// The functional kernels by instruction mnemonic. Every opcode of isa.def has one (checked
// when execute_instruction is first used).
using Kernel = void (*)(const isa::Instruction&, DramImage&, Datapath&);
using KernelRegistry = Registry<Kernel>;
const KernelRegistry& kernel_registry();

// The image after running every instruction of `exe` in program order from DramImage::load,
// on the C++ models with the given K-tile.
DramImage execute_program(const isa::Executable& exe, size_t k_tile = numerics::kDefaultKTile);

}  // namespace s2::sim::functional
