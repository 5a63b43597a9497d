#pragma once
// Batch norm on the PPU, training mode, over x [N, C, H, W] (per channel: N*H*W values): the
// instructions' operand plumbing around the shared arithmetic of isa/numerics/batch_norm.h
// (reductions and normalisation in double, rounded once to fp32).
//
// bn_fwd: eps and momentum are the instruction's f32 fields; the optional stats operand
// ([2, C] sum and sum of squares, from a PE epilogue) replaces the batch statistics (no
// reference kernel has this form: the compiler does not emit it yet); running_mean and
// running_var, when present, are updated in place; act (any activation) is applied to the f32
// y, and pre, when present, receives the value it reads. A channel of one value is a UserError.
// bn_bwd: dy first goes through the gate stage when there is a gate (gate_act's backward,
// relu's mask by default; the lanes store the result in dy's type), then the backward reads
// the saved f32 mean and invstd.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_bn_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_bn_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
