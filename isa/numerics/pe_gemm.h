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
  virtual void accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda, const float* b,
                          size_t ldb, float* c, size_t ldc) = 0;
  // The K-tile (0: the whole K).
  virtual size_t k_tile() const = 0;
};

// The C++ model: blocks of tile sums in vector registers over a packed copy of b
// (pe_gemm.cpp says how, and why every element still sees the contract's roundings).
class KTiledGemm final : public PeGemm {
 public:
  // Which compiled kernel runs. kAuto picks the widest vectors the CPU has (AVX2 on x86-64
  // when present); kBaseline forces the build's baseline ISA (SSE2 on x86-64). Both give the
  // same bits; the choice exists so that tests can check that on any machine.
  enum class Kernel { kAuto, kBaseline };

  explicit KTiledGemm(size_t k_tile, Kernel kernel = Kernel::kAuto)
      : k_tile_(k_tile), kernel_(kernel) {}
  void accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda, const float* b,
                  size_t ldb, float* c, size_t ldc) override;
  size_t k_tile() const override { return k_tile_; }

 private:
  size_t k_tile_;
  Kernel kernel_;
};

// The K-tile of the reference interpreter when no target is named: the base configuration's
// 32 PE rows (configs/s2train_base.yaml).
inline constexpr size_t kDefaultKTile = 32;

}  // namespace s2::numerics
