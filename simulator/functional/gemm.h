#pragma once
// gemm on the PE array: y [M,N] = op(a) x op(b) (+ bias) as isa/numerics/gemm.h defines it, on
// the datapath's PE GEMM; then the epilogue (bias, residual, act, gate) through the PPU lanes
// and the optional [2, N] column statistics of the final y.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_gemm(const isa::Instruction& inst, DramImage& image, Datapath& dp);

// bmm: one gemm per batch index (isa/numerics/gemm.h bmm), operands read through their
// strides (a zero batch stride repeats a matrix), no epilogue.
void run_bmm(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
