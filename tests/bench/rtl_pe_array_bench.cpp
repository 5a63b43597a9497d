// Simulation speed of the verilated 32x32 PE array: array clock cycles per wall-clock second,
// plain C++ build vs SystemC build (rtl_models/pe_array/), in the f32 mode and the bf16 mode.
// Prints the median of 3 runs; each run is a few full passes (M_t = 1024, N_t = 32, K_t = 32
// in f32, 128 in bf16: every slot of every PE busy) of random data.
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

double cycles_per_second(s2::rtl::RtlPeArray& array, int passes, s2::isa::DType mode) {
  const s2::rtl::PePass p{1024, array.cols(), array.max_k(mode), mode};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint32_t> x(size_t{p.m} * p.k), w(size_t{p.k} * p.n), c(size_t{p.m} * p.n, 0);
  const auto value = [&] {
    const uint32_t bits = s2::f32_bits(dist(rng));
    return mode == s2::isa::DType::F32 ? bits : bits >> 16;  // bf16: the upper half
  };
  for (uint32_t& v : x) {
    v = value();
  }
  for (uint32_t& v : w) {
    v = value();
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
      "rtl_pe_array_bench: 32x32, passes of M=1024 N=32, K=32 f32 (1119 cycles each) and "
      "K=128 bf16 (2243 cycles each: 4 MACs per PE, 2 cycles per input row), median of 3 "
      "runs\n");
  for (const s2::isa::DType mode : {s2::isa::DType::F32, s2::isa::DType::BF16}) {
    const char* name = mode == s2::isa::DType::F32 ? "f32 " : "bf16";
    std::printf("  %s plain C++ Verilator build: %.0f array cycles/s\n", name,
                cycles_per_second(*plain, 8, mode));
    std::printf("  %s SystemC Verilator build:   %.0f array cycles/s\n", name,
                cycles_per_second(sc, 4, mode));
  }
  return 0;
}
