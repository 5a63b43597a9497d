#pragma once
// The PPU epilogue that PE instructions (and bn_fwd's activation) stream through before the
// write to DRAM, in the ISA's order: y = act(pe + bias + residual), then the gate (y kept where
// gate > 0, zeroed elsewhere), then the optional per-channel statistics of the final y. Each
// step is rounded to f32 on its own, exactly like the separate eltwise instructions, so a fused
// instruction gives the bits of the unfused sequence. The bias joins inside each kernel, since
// where it joins is part of that kernel's order.

#include <cstddef>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::sim::functional {

// y = act(y + residual), then gate; residual and gate may be null (else y.size() elements).
void apply_epilogue(std::vector<float>& y, const float* residual, isa::Activation act,
                    const float* gate);

// The [2, C] statistics of y laid out as [outer, C, inner] (conv: [N, K, P*Q]; gemm: [M, N, 1]):
// row 0 the per-channel sum, row 1 the per-channel sum of squares. Each channel's sums start at
// +0.0f and add the channel's elements in row-major order of y, each square and each sum
// rounded to f32 (no reference kernel computes these, so this order is the definition).
std::vector<float> channel_stats(const std::vector<float>& y, size_t outer, size_t channels,
                                 size_t inner);

}  // namespace s2::sim::functional
