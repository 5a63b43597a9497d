#pragma once
// What an RTL co-simulation found: per RTL unit, the passes it ran and their cycles next to the
// model's cycles for the same passes, and the first divergence (cycles or bits) with what it
// takes to reproduce it. The RTL adapters (rtl_pe_gemm.h, rtl_ppu_lanes.h) fill it; `s2sim run
// --rtl` prints it and fails on a divergence.
#include <cstdint>
#include <ostream>
#include <string>

namespace s2::sim::rtl {

struct UnitCosim {
  uint64_t passes = 0;
  uint64_t rtl_cycles = 0;    // summed over the passes, as the RTL counted them
  uint64_t model_cycles = 0;  // the timing model's formula for the same passes
  uint64_t elements = 0;      // output elements compared bit for bit
  uint64_t divergences = 0;   // passes whose cycles or bits differ
  std::string first;          // the first divergence, empty when none
};

struct CosimLog {
  UnitCosim pe_array;
  UnitCosim ppu;
  // The instruction being executed, for the reports ("instruction 12 (conv2d layer1.0.conv1)").
  std::string context;

  bool diverged() const { return pe_array.divergences + ppu.divergences > 0; }
  void print(std::ostream& out) const;
};

}  // namespace s2::sim::rtl
