#pragma once
// The convolution family on the PE array: conv2d, conv2d_bwd_data, conv2d_bwd_weight. The
// arithmetic and its order are isa/numerics/conv.h, computed on the datapath's PE GEMM; the
// epilogue (bias, residual, act, gate) streams through the datapath's PPU lanes, then the
// optional statistics.

#include "isa/encoding/instruction.h"
#include "isa/numerics/conv.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

// Geometry from the instruction's fields and the shapes of x (or dx), w (or dw) and y (or dy).
numerics::ConvGeometry conv_geometry(const isa::Instruction& inst, const isa::TensorDesc& input,
                                     const isa::TensorDesc& filters, const isa::TensorDesc& output);

// The instructions, epilogue included (conv2d: bias, residual, act, stats; bwd_data:
// residual, gate; bwd_weight: residual).
void run_conv2d(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_conv2d_bwd_data(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_conv2d_bwd_weight(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
