#pragma once
// Softmax on the PPU over the last dimension of x (rank 1 to 4, viewed as [rows, C]): the
// instructions' operand plumbing around the shared arithmetic of isa/numerics/softmax.h (row
// sums in double, each result rounded once to fp32).
//
// softmax:     scale (f32 field), optional additive mask of x's shape (often a zero-stride
//              broadcast view), causal flag; writes y.
// softmax_bwd: reads dy and the forward output y; writes dx (times the scale field).

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_softmax(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_softmax_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
