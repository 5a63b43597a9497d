#pragma once
// Fused attention on the PE array (attn_fwd, attn_bwd): the operand plumbing around the shared
// arithmetic of isa/numerics/attention.h, whose products run through the datapath's PE GEMM
// (the C++ model, or the verilated array under --rtl).
//
// attn_fwd: reads q, k, v (and the mask), writes y and lse.
// attn_bwd: reads q, k, v (the mask), y, dy and lse; writes dq, dk and dv.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_attn_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_attn_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
