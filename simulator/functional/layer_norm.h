#pragma once
// Layer norm on the PPU over the last dimension of x (rank 2 to 4, viewed as [rows, D]): the
// instructions' operand plumbing around the shared arithmetic of isa/numerics/layer_norm.h
// (reductions and normalisation in double, rounded once to fp32).
//
// ln_fwd: eps is the instruction's f32 field; writes y and each row's mean and invstd.
// ln_bwd: reads the saved f32 row statistics; writes dx and the column sums dgamma, dbeta.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_ln_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_ln_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
