#pragma once
// The PE array's GEMM contract (DESIGN.md §6): c += a * b, every c element summed in the
// order the array produces it.
//
// The reduction dimension K is cut into K-tiles of k_tile steps, aligned at 0 (the rows of a
// weight-stationary array: one pass holds k_tile rows of stationary operands). Each tile is
// summed in its PE column from +0.0f in ascending k (t = t + a*b: the product and the sum each
// rounded to nearest-even, subnormals flushed, fp32.h), and at the bottom of the column the
// accumulator adds it to the running value (c = c + t), tile by tile in ascending k. A k_tile
// of 0 means one tile over the whole K (an output-stationary array accumulates in the PE).
//
// Every operand is a datapath value (already flushed, fp32.h load()); so is every result.
// Implementations: KTiledGemm below (the C++ model), and the simulator's RTL adapter
// (simulator/rtl/), which runs the same passes through the verilated PE array.
#include <cstddef>

namespace s2::numerics {

class PeGemm {
 public:
  virtual ~PeGemm() = default;
  // c[i][j] (row stride ldc) += sum over e in [0, kd) of a[i][e] * b[e][j], tiled as above;
  // a is m x kd (row stride lda), b is kd x n (row stride ldb).
  virtual void accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda,
                          const float* b, size_t ldb, float* c, size_t ldc) = 0;
  // The K-tile (0: the whole K).
  virtual size_t k_tile() const = 0;
};

// The C++ model. Rows are independent and the inner loop runs over j without reassociation,
// so it vectorises.
class KTiledGemm final : public PeGemm {
 public:
  explicit KTiledGemm(size_t k_tile) : k_tile_(k_tile) {}
  void accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda, const float* b,
                  size_t ldb, float* c, size_t ldc) override;
  size_t k_tile() const override { return k_tile_; }

 private:
  size_t k_tile_;
};

// The K-tile of the reference interpreter when no target is named: the base configuration's
// 32 PE rows (configs/s2train_base.yaml).
inline constexpr size_t kDefaultKTile = 32;

}  // namespace s2::numerics
