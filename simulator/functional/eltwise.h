#pragma once
// eltwise on the PPU: y = op(a, b) element by element over the operands' row-major order
// (equal element counts, shapes may differ). Every product and every sum is rounded to f32 on
// its own (axpby = (scale_a * a) + (scale_b * b), scale = (scale_a * a) + scale_b).
// max and min propagate a NaN in either operand; max(+0, -0) and min(+0, -0) return b.
// relu and relu_bwd use strict comparisons with +0.0f, as the epilogue's act and gate do.

#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

// b is empty for the unary ops (relu, scale).
std::vector<float> eltwise(isa::EltwiseOp op, const std::vector<float>& a,
                           const std::vector<float>& b, float scale_a, float scale_b);

void run_eltwise(const isa::Instruction& inst, DramImage& image);

}  // namespace s2::sim::functional
