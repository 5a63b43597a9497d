#pragma once
// gemm on the PE array: y [M,N] = op(a) [M,K] x op(b) [K,N] (+ bias [N]), op = transpose when
// trans_a / trans_b is set (a stored [K,M], b stored [N,K]). Each y element is summed by the
// PeGemm (pe_gemm.h) from +0.0f; the bias joins after the whole sum (numerics::add). Shared
// by the compiler's reference interpreter and the simulator's functional model.
#include <cstddef>

#include "isa/numerics/pe_gemm.h"

namespace s2::numerics {

// a and b dense as stored; bias may be null; y is overwritten.
void gemm(size_t m, size_t n, size_t k, const float* a, bool trans_a, const float* b, bool trans_b,
          const float* bias, float* y, PeGemm& pe);

// bmm: `batches` independent gemms without bias, one after another; a, b and y dense, batch
// after batch (a is batches x [M,K] or [K,M], b batches x [K,N] or [N,K], y batches x [M,N]).
// Each batch sums exactly as gemm() does.
void bmm(size_t batches, size_t m, size_t n, size_t k, const float* a, bool trans_a, const float* b,
         bool trans_b, float* y, PeGemm& pe);

}  // namespace s2::numerics
