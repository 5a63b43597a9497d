#pragma once
// `s2sim regress`: the co-design regression. Directed and random tiles — shapes at and around
// the array size, ragged edges, and operands from four profiles (ordinary values, magnitude
// extremes and subnormals, signed zeros, Inf/NaN and arbitrary bit patterns) — run through the
// plain C++ Verilator builds of the RTL and through the simulator's models:
//   pe_array  every built size (32x32, 16x16, 8x4) and multiply mode (f32, bf16, f16): a GEMM
//             c += a*b per tile, as passes (s2::rtl::run_gemm); bits against the functional
//             model (numerics::KTiledGemm with k_tile = rows on the widened multiplicands),
//             each pass's cycles against timing::PeArrayModel::pass_cycles of the mode;
//             every other 36 tiles with the PPU epilogue (plain 32 lanes, random width and
//             latency) following the array's drain port: the drained rows against the
//             accumulator's final values, the tile's cycles with the epilogue's tail against
//             PeArrayModel::streamed_tile_cycles;
//   ppu       every built lane count (32, 16): one lane pass per tile, any op, width and
//             latency; bits against functional::ModelPpuLanes, cycles against
//             timing::ppu_pass_cycles.
// Tile i of a run is generated from (seed, i) alone, so `--tile i` replays it. A mismatch is
// reported with the tile, its shape and profile, the first divergent element and cycle, both
// values in hex and the command that reproduces it.
#include <cstdint>
#include <optional>
#include <ostream>

namespace s2::sim::rtl {

struct RegressOptions {
  uint64_t seed = 1;
  uint64_t count = 1000;  // tiles per unit
  bool pe_array = true;
  bool ppu = true;
  std::optional<uint64_t> tile;          // run only this tile index
  bool model_round_toward_zero = false;  // a deliberately wrong model: it must be caught
  uint64_t max_reports = 5;
};

struct RegressSummary {
  uint64_t tiles = 0;
  uint64_t passes = 0;
  uint64_t cycles = 0;    // RTL cycles compared
  uint64_t elements = 0;  // output elements compared
  uint64_t mismatches = 0;
};

struct RegressResult {
  RegressSummary pe_array;
  RegressSummary ppu;
  bool passed() const { return pe_array.mismatches == 0 && ppu.mismatches == 0; }
};

// Runs the regression, printing progress, mismatches and a summary to `out`.
RegressResult run_regress(const RegressOptions& options, std::ostream& out);

}  // namespace s2::sim::rtl
