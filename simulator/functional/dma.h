#pragma once
// The DMA instructions' data movement:
//   copy  dst = src element by element in row-major order (same element count and dtype);
//         the whole source is gathered before any byte of dst is written, so an overlapping
//         copy moves the old values.
//   fill  every element of dst = value (an f32 field); i32 and u8 take its integer part
//         (truncation toward zero), saturated to the type's range, NaN giving 0; bf16 and
//         f16 take it as a datapath value rounded to the type (isa/numerics/low_precision.h).

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_copy(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_fill(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
