// Benchmark, not a test: plans a compiled executable on a config and prints the totals of the
// timing plan and how long planning took.
//   timing_plan_bench PROGRAM.bin CONFIG.yaml
#include <chrono>
#include <cstdio>
#include <exception>

#include "isa/container/reader.h"
#include "simulator/dram/load_target.h"
#include "simulator/timing/plan.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PROGRAM.bin CONFIG.yaml\n", argv[0]);
    return 1;
  }
  try {
    const auto exe = s2::isa::load_executable(argv[1]);
    const auto target = s2::target::load_target(argv[2]);
    const auto start = std::chrono::steady_clock::now();
    const auto plans = s2::sim::timing::plan_program(exe, target);
    const std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - start;
    unsigned long long pe = 0, ppu = 0, roof = 0, macs = 0, tiles = 0, loads = 0, stores = 0;
    for (const auto& p : plans) {
      pe += p.pe_cycles();
      ppu += p.ppu_cycles();
      roof += p.roofline_cycles;
      macs += p.macs;
      tiles += p.tiles.size();
      loads += p.load_bytes();
      stores += p.store_bytes();
    }
    std::printf("instructions %zu  tiles %llu  planning %.1f ms\n", plans.size(), tiles,
                wall.count());
    std::printf("PE cycles %llu  PPU cycles %llu  roofline sum %llu  MACs %llu\n", pe, ppu, roof,
                macs);
    std::printf("tile DRAM bytes: loaded %llu  stored %llu\n", loads, stores);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
