#pragma once
// The PE array's accumulation order, the one numeric contract every PE instruction shares
// (DESIGN.md §6): a dot product over K is cut into K-tiles of kKTile steps; each tile is summed
// from +0.0f in ascending k (tile = tile + a*b, the product and the sum each rounded to
// nearest-even, no fused multiply-add), and the tiles are added in order to the running value
// (c = c + tile). This is what the compiler's reference interpreter does, so the two agree bit
// for bit. Build with -ffp-contract=off so the compiler never fuses a*b+c.
//
// Subnormals are NOT flushed here: the reference interpreter keeps them, and bit identity
// with it is the contract of this model. Flushing belongs to the RTL issue, which must then
// add the same flush to both sides.

#include <cstddef>
#include <cstdint>

namespace s2::sim::functional {

inline constexpr size_t kKTile = 32;

// c[i][j] (row stride ldc) = c[i][j] + sum over e in [0, kd) of a[i][e] * b[e][j], tiled as
// above; a has row stride lda, b row stride ldb. Rows are
// independent, and the inner loop runs over j with no reassociation, so it vectorises.
void accumulate_ktiled(size_t m, size_t n, size_t kd, const float* a, size_t lda, const float* b,
                       size_t ldb, float* c, size_t ldc);

}  // namespace s2::sim::functional
