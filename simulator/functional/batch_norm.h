#pragma once
// Batch norm on the PPU, training mode, over x [N, C, H, W] (per channel: N*H*W values).
//
// bn_fwd: batch mean and biased variance in double (two passes: sum, then the sum of squared
// deviations, each in row-major order), invstd = 1 / sqrt(var + eps), y = (x - mean) * invstd *
// gamma + beta in double rounded once to f32, then act; saved mean and invstd are the f32
// roundings; running = (1 - m) * running + m * batch (the unbiased variance), in double. eps
// and momentum are the instruction's f32 fields widened to double - the reference interpreter
// rounds its attributes to f32 first, so both see the same values.
// With a stats operand ([2, C] sum and sum of squares, from a PE epilogue) the statistics are
// taken from it instead: mean = sum / count, var = max(0, sumsq / count - mean^2), in double.
// No reference kernel has this form (the compiler does not emit it yet), so this is its
// definition.
//
// bn_bwd: dy is first masked by the gate (kept where gate > 0), then per channel, in double:
// dbeta = sum dy, dgamma = sum dy * xhat, dx = gamma * invstd * ((dy - mean(dy)) - xhat *
// mean(dy * xhat)), with xhat = (x - mean) * invstd from the saved f32 statistics.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_bn_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_bn_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
