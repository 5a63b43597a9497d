#include "isa/numerics/gemm.h"

#include <algorithm>
#include <vector>

#include "isa/numerics/fp32.h"

namespace s2::numerics {
namespace {

// src [cols][rows] -> dst [rows][cols].
std::vector<float> transpose(const float* src, size_t rows, size_t cols) {
  std::vector<float> dst(rows * cols);
  for (size_t c = 0; c < cols; ++c)
    for (size_t r = 0; r < rows; ++r)
      dst[r * cols + c] = src[c * rows + r];
  return dst;
}

}  // namespace

void gemm(size_t m, size_t n, size_t k, const float* a, bool trans_a, const float* b, bool trans_b,
          const float* bias, float* y, PeGemm& pe) {
  std::vector<float> a_packed, b_packed;
  if (trans_a) {
    a_packed = transpose(a, m, k);
    a = a_packed.data();
  }
  if (trans_b) {
    b_packed = transpose(b, k, n);
    b = b_packed.data();
  }
  std::fill(y, y + m * n, 0.0f);
  pe.accumulate(m, n, k, a, k, b, n, y, n);
  if (bias != nullptr)
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j)
        y[i * n + j] = add(y[i * n + j], bias[j]);
}

void bmm(size_t batches, size_t m, size_t n, size_t k, const float* a, bool trans_a, const float* b,
         bool trans_b, float* y, PeGemm& pe) {
  for (size_t i = 0; i < batches; ++i)
    gemm(m, n, k, a + i * m * k, trans_a, b + i * k * n, trans_b, nullptr, y + i * m * n, pe);
}

}  // namespace s2::numerics
