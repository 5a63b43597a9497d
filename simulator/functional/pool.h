#pragma once
// Pooling on the PPU, per [H, W] plane of x [N, C, H, W]: the instructions' operand plumbing
// around the shared arithmetic of isa/numerics/pool.h (windows clipped to the input, tie and
// NaN rules, summation orders, divisors). The output plane is the y / dy descriptor's.
// maxpool_bwd: an idx outside its input plane is a UserError naming the instruction (the
// indices come from DRAM, not from the instruction).

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_maxpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_maxpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_avgpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_avgpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
