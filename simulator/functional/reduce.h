#pragma once
// reduce on the PPU: x reduced over the dimensions in `axes` (bit i = dimension i, outermost
// first); y holds the remaining dimensions in order (one element when all are reduced). The
// arithmetic and its order are isa/numerics/reduce.h's (sum, sumsq and mean by a pairwise
// tree; max in row-major order, a NaN sticks).

#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_reduce(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
