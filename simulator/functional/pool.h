#pragma once
// Pooling on the PPU, per [H, W] plane of x [N, C, H, W]. Windows are clipped to the input
// (padding never wins a max and adds nothing to a sum); the output size follows
// isa::window_output_size (ceil_mode as in PyTorch).
//   maxpool_fwd  the first maximum in row-major window order wins, a NaN always wins; idx is
//                the flat index h*W + w of the winner in its input plane.
//   maxpool_bwd  dx = 0, then dx[idx] += dy in output order; an idx outside the plane is a
//                UserError (it comes from DRAM, not from the instruction).
//   avgpool_fwd  sum from +0.0f in row-major window order, then one division by the divisor:
//                the padded window size (clipped at the far padding) with count_include_pad,
//                else the number of input elements in the window.
//   avgpool_bwd  dx = 0, then each window's dy / divisor is added to its elements, windows in
//                output order.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_maxpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_maxpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_avgpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_avgpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
