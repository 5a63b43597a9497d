#pragma once
// gemm on the PE array: y [M,N] = op(a) [M,K] x op(b) [K,N], op = transpose when trans_a /
// trans_b is set (a stored [K,M], b stored [N,K]). Each y element sums over k in the order of
// accumulate.h from +0.0f; the bias [N] is added after the whole sum, then the epilogue
// (residual, act, gate) and the optional [2, N] column statistics of the final y.

#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

// a and b dense as stored; bias may be null.
std::vector<float> gemm(size_t m, size_t n, size_t k, const float* a, bool trans_a,
                        const float* b, bool trans_b, const float* bias);

void run_gemm(const isa::Instruction& inst, DramImage& image);

}  // namespace s2::sim::functional
