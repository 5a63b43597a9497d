#pragma once
// Embedding lookup on the PPU: the instructions' operand plumbing around the shared arithmetic
// of isa/numerics/embedding.h.
//
// gather:      y = the rows of table [V, D] that ids (rank 1 to 3, i32) name, in ids' order.
// scatter_add: dw [V, D] = 0, then each row of dy added to the row of dw its id names, in
//              row-major order of ids (repeated ids accumulate).
// An id outside [0, V) is a UserError naming the instruction and the id's position.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_gather(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_scatter_add(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
