#pragma once
// What an RTL co-simulation found, in its two parts:
//  * timing: the RTL units clock the timing simulation's PE-array and PPU units tile by tile
//    (simulator/top/rtl_tile_clock.h): the tiles and passes they ran, their cycles next to the
//    model's cycles for the same tiles, and what stayed on the model's formula because the RTL
//    does not implement the op;
//  * datapath: the functional replay runs every PE GEMM and PPU lane pass through the RTL
//    (rtl_pe_gemm.h, rtl_ppu_lanes.h): passes, cycles, and output bits compared.
// Each part keeps its first divergence (cycles or bits) with what it takes to reproduce it;
// `s2sim run --rtl` prints the log and fails on a divergence.
#include <cstdint>
#include <ostream>
#include <set>
#include <string>

namespace s2::sim::rtl {

struct UnitCosim {
  uint64_t passes = 0;
  uint64_t rtl_cycles = 0;    // summed over the passes, as the RTL counted them
  uint64_t model_cycles = 0;  // the timing model's formula for the same passes
  uint64_t elements = 0;      // output elements compared bit for bit
  uint64_t divergences = 0;   // passes whose cycles or bits differ
  std::string first;          // the first divergence, empty when none
  // Passes of operations the RTL does not implement, computed by the C++ model instead.
  uint64_t model_passes = 0;
  std::set<std::string> model_ops;
};

// One timing unit clocked by an RTL unit.
struct TimingCosim {
  uint64_t tiles = 0;  // tiles whose compute ran on the RTL
  uint64_t passes = 0;
  uint64_t rtl_cycles = 0;    // as the RTL's clock ran them: what the unit waited
  uint64_t model_cycles = 0;  // the model's cycles for the same tiles
  uint64_t divergences = 0;   // tiles whose cycles differ
  std::string first;
  // Of `tiles`, those identical to a tile clocked earlier in the run, which took its cycles
  // without the RTL clocking them again (rtl_tile_clock.h, "Repeated tiles").
  uint64_t reused_tiles = 0;
  // Tiles of ops the RTL does not implement, timed by the model's formula instead.
  uint64_t model_timed_tiles = 0;
  uint64_t model_timed_cycles = 0;
  std::set<std::string> model_timed_ops;
};

struct CosimLog {
  TimingCosim timing_pe_array;
  TimingCosim timing_epilogue;  // the PPU RTL after the PE array: each PE tile's epilogue
  TimingCosim timing_ppu;
  UnitCosim pe_array;
  UnitCosim ppu;
  // The instruction being executed, for the reports ("instruction 12 (conv2d layer1.0.conv1)").
  std::string context;

  bool diverged() const {
    return timing_pe_array.divergences + timing_epilogue.divergences + timing_ppu.divergences +
               pe_array.divergences + ppu.divergences >
           0;
  }
  void print(std::ostream& out) const;
};

}  // namespace s2::sim::rtl
