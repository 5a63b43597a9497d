#pragma once
// dropout_mask on the PPU: y = dropout's scaled keep mask drawn by the Philox4x32-10 generator
// under key {seed, counter} (isa/numerics/philox.h), then counter += 1 in place.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_dropout_mask(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
