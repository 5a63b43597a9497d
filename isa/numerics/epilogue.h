#pragma once
// The PPU epilogue that PE instructions stream their result through before the write to DRAM,
// in the ISA's order: y = act(pe + bias + residual), then the gate (gate_act's backward of y
// at the gate operand: act_bwd; relu keeps y where gate > 0),
// then the optional per-channel statistics of the final y. Each step uses the lane operation
// of the separate PPU instruction (lane_ops.h), so a fused instruction gives the bits of the
// unfused sequence. The bias joins inside each PE kernel (conv.h, gemm.h). Shared by the
// compiler's reference interpreter and the simulator's functional model.
#include <cstddef>

#include "isa/encoding/isa_table.h"

namespace s2::numerics {

// y = act(y + residual), then gate (act_bwd(gate_act, y, gate), y first rounded to y_type:
// lane_ops.h, gate_stage()), over n elements; residual, gate and pre may be null. With pre
// (the ISA's pre operand), y + residual is rounded to pre_type and stored there, and the
// activation reads that rounded value: what the separate activation op would read.
void apply_epilogue(float* y, size_t n, const float* residual, isa::Activation act,
                    const float* gate, isa::Activation gate_act = isa::Activation::Relu,
                    isa::DType y_type = isa::DType::F32, float* pre = nullptr,
                    isa::DType pre_type = isa::DType::F32);

// The [2, C] statistics of y laid out as [outer, C, inner] (conv: [N, K, P*Q]; gemm:
// [M, N, 1]) into stats: row 0 the per-channel sum, row 1 the per-channel sum of squares.
// Each channel's sums start at +0.0f and add the channel's elements in row-major order of y
// (sum = sum + v; sumsq = sumsq + v*v, each operation numerics::add / mul).
void channel_stats(const float* y, size_t outer, size_t channels, size_t inner, float* stats);

}  // namespace s2::numerics
