#include "isa/numerics/pe_gemm.h"

#include <algorithm>

#include "isa/numerics/fp32.h"

namespace s2::numerics {

void KTiledGemm::accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  // Column blocks keep a kd x kColumnBlock panel of b in cache across the rows of a; every
  // element still sees exactly the tile order of the contract.
  constexpr size_t kColumnBlock = 256;
  const size_t tile_k = k_tile_ == 0 ? std::max<size_t>(kd, 1) : k_tile_;
  float tile[kColumnBlock];
  for (size_t j0 = 0; j0 < n; j0 += kColumnBlock) {
    const size_t width = std::min(kColumnBlock, n - j0);
    for (size_t i = 0; i < m; ++i) {
      const float* a_row = a + i * lda;
      float* c_row = c + i * ldc + j0;
      for (size_t e0 = 0; e0 < kd; e0 += tile_k) {
        std::fill(tile, tile + width, 0.0f);
        const size_t e1 = std::min(kd, e0 + tile_k);
        for (size_t e = e0; e < e1; ++e) {
          const float av = a_row[e];
          const float* b_row = b + e * ldb + j0;
          for (size_t j = 0; j < width; ++j)
            tile[j] = add(tile[j], mul(av, b_row[j]));
        }
        for (size_t j = 0; j < width; ++j)
          c_row[j] = add(c_row[j], tile[j]);
      }
    }
  }
}

}  // namespace s2::numerics
