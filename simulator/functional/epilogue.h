#pragma once
// The PPU epilogue that PE instructions (and bn_fwd's activation, bn_bwd's gate) stream
// through before the write to DRAM, in the ISA's order: y = act(pe + bias + residual), then
// the gate, then the optional per-channel statistics of the final y (isa/numerics/epilogue.h,
// lane_ops.h). The stages run as one Epilogue pass of the datapath's PPU lanes.

#include <cstddef>
#include <vector>

#include "simulator/functional/ppu_lanes.h"

namespace s2::sim::functional {

struct EpilogueOperands {
  std::vector<float> bias;          // one value per element (broadcast), or empty
  const float* residual = nullptr;  // else y.size() elements
  isa::Activation act = isa::Activation::None;
  const float* gate = nullptr;
};

// The per-channel bias of a [outer, C, inner] tensor, one value per element.
std::vector<float> broadcast_channels(const std::vector<float>& per_channel, size_t outer,
                                      size_t channels, size_t inner);

// y = epilogue(y) through the lanes; no pass when no stage is on.
void run_epilogue(PpuLanes& ppu, std::vector<float>& y, const EpilogueOperands& e);

// The [2, C] statistics of y laid out as [outer, C, inner] (isa/numerics/epilogue.h).
std::vector<float> channel_stats(const std::vector<float>& y, size_t outer, size_t channels,
                                 size_t inner);

}  // namespace s2::sim::functional
