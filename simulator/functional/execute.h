#pragma once
// The functional datapath of the simulator: one instruction's effect on the DRAM image, with
// real fp32 numbers. The numerics are exactly those of the compiler's reference interpreter
// (compiler/ops/*), so an executable run here in program order leaves the same bits in every
// tensor as the compiler's stream checker and the interpreter - see each family's header for
// its accumulation order (accumulate.h for the PE array). Subnormals are kept, as the
// interpreter keeps them; flushing them (DESIGN.md §6) is left to the RTL issue, which must
// apply it to both models at once.
//
// Contract: the instruction is first checked with isa::check_instruction (a malformed one is
// a UserError listing its problems); data-dependent faults (a label or pooling index out of
// range, a descriptor outside DRAM) are UserErrors naming the mnemonic. All inputs are
// gathered before any output is written. Dependencies are not consulted: the caller (the
// controller, or a test running program order) decides when an instruction may run.

#include <string>
#include <vector>

#include "isa/container/executable.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void execute_instruction(const isa::Instruction& inst, DramImage& image);

// Every opcode's mnemonic that has a functional kernel, in opcode order (all of isa.def; the
// execution table is checked against it when first used).
std::vector<std::string> functional_opcodes();

// The image after running every instruction of `exe` in program order from DramImage::load.
DramImage execute_program(const isa::Executable& exe);

}  // namespace s2::sim::functional
