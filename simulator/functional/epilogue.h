#pragma once
// The PPU epilogue that PE instructions (and bn_fwd's activation, bn_bwd's gate) stream
// through before the write to DRAM, in the ISA's order: y = act(pe + bias + residual), then
// the gate, then the optional per-channel statistics of the final y (isa/numerics/epilogue.h,
// lane_ops.h). The stages run as one Epilogue pass of the datapath's PPU lanes.

#include <cstddef>
#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/functional/ppu_lanes.h"

namespace s2::sim::functional {

struct EpilogueOperands {
  std::vector<float> bias;          // one value per element (broadcast), or empty
  const float* residual = nullptr;  // else y.size() elements
  isa::Activation act = isa::Activation::None;
  const float* gate = nullptr;
  isa::Activation gate_act = isa::Activation::Relu;  // the gate's backward (field gate_act)
  // The pre operand, when the instruction has one: receives the value the activation reads
  // (after bias and residual) rounded to pre_type, and the activation reads that rounded value.
  std::vector<float>* pre = nullptr;
  isa::DType pre_type = isa::DType::F32;
};

// The gate_act field of a PE instruction that has one, as the activation whose backward the
// gate computes (relu otherwise).
isa::Activation gate_act_of(const isa::Instruction& inst);

// The per-channel bias of a [outer, C, inner] tensor, one value per element.
std::vector<float> broadcast_channels(const std::vector<float>& per_channel, size_t outer,
                                      size_t channels, size_t inner);

// y = epilogue(y) through the lanes, whose store writes y back in y_type (a 16-bit y is rounded
// there, as the hardware converts on write-back; the caller's write rounds it again to the
// same bits). `wide`, when given and y_type is 16-bit, receives the f32 results before that
// rounding: what the channel statistics read (an f32 y is them already; `wide` stays empty).
// No pass when no stage is on and y_type is f32. With e.pre, two passes: bias and residual
// (stored as pre), then the activation and the gate on pre's rounded values.
void run_epilogue(PpuLanes& ppu, std::vector<float>& y, const EpilogueOperands& e,
                  isa::DType y_type = isa::DType::F32, std::vector<float>* wide = nullptr);

// The [2, C] statistics of y laid out as [outer, C, inner] (isa/numerics/epilogue.h).
std::vector<float> channel_stats(const std::vector<float>& y, size_t outer, size_t channels,
                                 size_t inner);

}  // namespace s2::sim::functional
