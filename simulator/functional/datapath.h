#pragma once
// The engines the functional kernels compute on: the PE array's GEMM and the PPU's lanes.
// By default the C++ models (isa/numerics); `s2sim run --rtl pe_array,ppu` swaps in the
// verilated RTL through the same interfaces (simulator/rtl/).
#include <cstddef>

#include "isa/numerics/pe_gemm.h"
#include "simulator/functional/ppu_lanes.h"

namespace s2::sim::functional {

struct Datapath {
  numerics::PeGemm& pe;
  PpuLanes& ppu;
};

// The C++ models, owned: the PE GEMM with the given K-tile (pe_k_tile() of the target, or
// numerics::kDefaultKTile) and the lane operations.
class ModelDatapath {
 public:
  explicit ModelDatapath(size_t k_tile = numerics::kDefaultKTile) : pe_(k_tile) {}
  ModelDatapath(const ModelDatapath&) = delete;
  ModelDatapath& operator=(const ModelDatapath&) = delete;
  Datapath& get() { return dp_; }

 private:
  numerics::KTiledGemm pe_;
  ModelPpuLanes ppu_;
  Datapath dp_{pe_, ppu_};
};

}  // namespace s2::sim::functional
