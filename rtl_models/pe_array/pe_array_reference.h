#pragma once
// The C++ reference of what pe_array.sv computes, written with s2::numerics (the one
// definition of the datapath arithmetic): regressions compare the RTL against these bit for bit.
#include <cstddef>
#include <cstdint>

#include "isa/common/float_bits.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"
#include "rtl_models/pe_array/pe_array_rtl.h"

namespace s2::rtl {

// A multiplicand word of `mode` as the datapath reads it: f32 bits unchanged, a 16-bit pattern
// (bits 15:0) widened by isa/numerics/low_precision.h.
inline uint32_t reference_operand(uint32_t word, isa::DType mode) {
  const auto half = static_cast<uint16_t>(word & 0xFFFFu);
  if (mode == isa::DType::BF16) return f32_bits(numerics::bf16_to_f32(half));
  if (mode == isa::DType::F16) return f32_bits(numerics::f16_to_f32(half));
  return word;
}

// One pass of an array with `rows` PE rows: per K-tile [q*rows, (q+1)*rows) of the pass's k
// steps, in ascending q, c[i][j] = add(c[i][j], t) with t = +0, t = mac(t, x[i][r], w[r][j])
// over the tile.
inline void reference_pass(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w,
                           size_t ldw, uint32_t* c, size_t ldc, uint32_t rows) {
  for (uint32_t i = 0; i < pass.m; ++i)
    for (uint32_t j = 0; j < pass.n; ++j)
      for (uint32_t k0 = 0; k0 < pass.k; k0 += rows) {
        uint32_t t = 0;  // +0.0
        for (uint32_t r = k0; r < pass.k && r < k0 + rows; ++r)
          t = numerics::mac_bits(t, reference_operand(x[size_t{i} * ldx + r], pass.mode),
                                 reference_operand(w[size_t{r} * ldw + j], pass.mode));
        uint32_t& out = c[size_t{i} * ldc + j];
        out = numerics::add_bits(out, t);
      }
}

// c += a * b with K-tiled accumulation: per block [k0, k0 + k_tile) in ascending order, a
// fresh partial sum from +0 is added into c. What run_gemm() computes with k_tile = rows().
// Written with the float forms (load at the inputs, store at the output) on purpose: a second,
// independent formulation next to reference_pass()'s *_bits forms.
inline void reference_gemm(uint32_t m, uint32_t n, uint32_t kd, const uint32_t* a, size_t lda,
                           const uint32_t* b, size_t ldb, uint32_t* c, size_t ldc, uint32_t k_tile,
                           isa::DType mode = isa::DType::F32) {
  const auto value = [mode](uint32_t word) {
    const auto half = static_cast<uint16_t>(word & 0xFFFFu);
    if (mode == isa::DType::BF16) return numerics::bf16_to_f32(half);
    if (mode == isa::DType::F16) return numerics::f16_to_f32(half);
    return numerics::load(f32_from_bits(word));
  };
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      float acc = numerics::load(f32_from_bits(c[size_t{i} * ldc + j]));
      for (uint32_t k0 = 0; k0 < kd; k0 += k_tile) {
        float t = 0.0f;
        for (uint32_t e = k0; e < kd && e < k0 + k_tile; ++e)
          t = numerics::mac(t, value(a[size_t{i} * lda + e]), value(b[size_t{e} * ldb + j]));
        acc = numerics::add(acc, t);
      }
      c[size_t{i} * ldc + j] = f32_bits(numerics::store(acc));
    }
}

}  // namespace s2::rtl
