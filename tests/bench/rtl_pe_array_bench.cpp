// Simulation speed of the verilated 32x32 PE array: array clock cycles per wall-clock second,
// plain C++ build vs SystemC build (rtl_models/pe_array/). Prints the median of 3 runs; each
// run is a few full passes (M_t = 1024, N_t = 32, K_t = 32) of random data.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <systemc>
#include <vector>

#include "isa/common/float_bits.h"
#include "rtl_models/pe_array/pe_array_rtl.h"
#include "rtl_models/pe_array/pe_array_sc.h"

namespace {

double cycles_per_second(s2::rtl::RtlPeArray& array, int passes) {
  const s2::rtl::PePass p{1024, array.cols(), array.rows()};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint32_t> x(size_t{p.m} * p.k), w(size_t{p.k} * p.n), c(size_t{p.m} * p.n, 0);
  for (uint32_t& v : x) {
    v = s2::f32_bits(dist(rng));
  }
  for (uint32_t& v : w) {
    v = s2::f32_bits(dist(rng));
  }
  double best[3];
  for (double& run : best) {
    uint64_t cycles = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int q = 0; q < passes; ++q)
      cycles += array.run_pass(p, x.data(), p.k, w.data(), p.n, c.data(), p.n);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    run = static_cast<double>(cycles) / dt.count();
  }
  std::sort(best, best + 3);
  return best[1];
}

}  // namespace

int sc_main(int, char*[]) {
  s2::rtl::RtlPeArraySc sc("pe_array_sc", 32, 32, 1000);
  const auto plain = s2::rtl::make_rtl_pe_array(32, 32);
  std::printf(
      "rtl_pe_array_bench: 32x32, passes of M=1024 N=32 K=32 (1119 cycles each), "
      "median of 3 runs\n");
  std::printf("  plain C++ Verilator build: %.0f array cycles/s\n", cycles_per_second(*plain, 8));
  std::printf("  SystemC Verilator build:   %.0f array cycles/s\n", cycles_per_second(sc, 4));
  return 0;
}
