#include "isa/numerics/embedding.h"

#include <algorithm>

namespace s2::numerics {

std::optional<size_t> first_id_outside(const int32_t* ids, size_t n, size_t rows) {
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= rows) return i;
  return std::nullopt;
}

void gather_rows(const float* table, size_t d, const int32_t* ids, size_t n, float* y) {
  for (size_t i = 0; i < n; ++i) {
    const float* row = table + static_cast<size_t>(ids[i]) * d;
    std::copy(row, row + d, y + i * d);
  }
}

void scatter_add_rows(const float* dy, size_t d, const int32_t* ids, size_t n, size_t rows,
                      float* dw) {
  std::fill(dw, dw + rows * d, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    float* row = dw + static_cast<size_t>(ids[i]) * d;
    const float* g = dy + i * d;
    for (size_t k = 0; k < d; ++k)
      row[k] += g[k];
  }
}

}  // namespace s2::numerics
