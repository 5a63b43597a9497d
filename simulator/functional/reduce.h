#pragma once
// reduce on the PPU: x reduced over the dimensions in `axes` (bit i = dimension i, outermost
// first); y holds the remaining dimensions in order (one element when all are reduced). Each
// y element starts at +0.0f (max: -inf) and takes its x elements in row-major order of x,
// rounded to f32 after every step:
//   sum    y = y + x          sumsq  y = y + x * x (the square rounded, then the sum)
//   mean   the sum, then one division by the number of reduced elements (as f32)
//   max    y = x when x > y or x is NaN (a NaN sticks)

#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

std::vector<float> reduce(isa::ReduceOp op, const std::vector<float>& x,
                          const std::vector<uint32_t>& shape, uint32_t axes);

void run_reduce(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
