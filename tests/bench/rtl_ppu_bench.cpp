// PPU RTL benchmark: elements and clock cycles per wall second of the plain C++ Verilator builds
// (32 and 16 lanes) and of the SystemC build (32 lanes, RtlPpuSc), median of 3 runs per op.
// Each build's first pass is checked against the s2::numerics reference (exit 1 on a mismatch).
// Speed is printed, never asserted.
//
//   rtl_ppu_bench [--elements N]      (default 1048576 per pass; SystemC: N / 4)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <systemc>
#include <vector>

#include "bench_args.h"
#include "rtl_models/ppu/ppu_rtl.h"
#include "rtl_models/ppu/ppu_sc.h"
#include "tests/rtl_models/ppu_test_util.h"

namespace {

using s2::rtl::PpuPass;
using s2::rtl::PpuRtlOp;
using s2::rtl::RtlPpu;
namespace t = s2::rtl::test;

struct Timing {
  double seconds;
  uint64_t cycles;
};

PpuPass pass_of(PpuRtlOp op, uint32_t lanes, uint64_t elements) {
  PpuPass p;
  p.op = op;
  p.elements = elements;
  p.width = lanes;
  p.latency = 4;
  p.alpha = 0x3F000000u;
  p.beta = 0x3F800000u;
  p.lr = 0x3C23D70Au;
  p.momentum = 0x3F666666u;
  p.weight_decay = 0x38D1B717u;
  p.bias = p.residual = p.relu = true;
  return p;
}

// Returns false on a mismatch with the reference.
bool bench(const char* build, RtlPpu& ppu, uint64_t elements) {
  const t::PassInputs in = t::random_inputs(1, elements);
  bool ok = true;
  for (PpuRtlOp op : {PpuRtlOp::Add, PpuRtlOp::Axpby, PpuRtlOp::Sgd, PpuRtlOp::Epilogue}) {
    const PpuPass pass = pass_of(op, ppu.lanes(), elements);
    std::vector<Timing> runs;
    for (int r = 0; r < 3; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const t::PassResult got = t::rtl_pass(ppu, pass, in);
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      runs.push_back({s, got.cycles});
      if (r == 0) {
        const std::string diff = t::first_mismatch(pass, in, t::reference_pass(pass, in), got);
        if (!diff.empty()) {
          std::printf("MISMATCH %s: %s\n", build, diff.c_str());
          ok = false;
        }
      }
    }
    std::sort(runs.begin(), runs.end(),
              [](const Timing& a, const Timing& b) { return a.seconds < b.seconds; });
    const Timing& m = runs[1];
    std::printf(
        "%-18s %-12s E=%-8llu cycles=%-8llu median %.3f s: %.3g elements/s, %.3g cycles/s\n", build,
        s2::rtl::ppu_rtl_op_name(op), static_cast<unsigned long long>(elements),
        static_cast<unsigned long long>(m.cycles), m.seconds,
        static_cast<double>(elements) / m.seconds, static_cast<double>(m.cycles) / m.seconds);
  }
  return ok;
}

}  // namespace

int sc_main(int argc, char** argv) {
  static const char* const kUsage = "rtl_ppu_bench [--elements N]";
  uint64_t elements = 1u << 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--elements") == 0 && i + 1 < argc) {
      // The SystemC build runs N / 4 of them. The inputs take 16 bytes per element: 2^28
      // elements are 4 GiB.
      constexpr uint64_t kMax = uint64_t{1} << 28;
      if (!s2::bench::parse_count(argv[i + 1], 4, kMax, elements))
        s2::bench::refuse_count("rtl_ppu_bench", argv[i + 1], 4, kMax, kUsage);
      ++i;
    } else {
      std::fprintf(stderr, "rtl_ppu_bench: bad argument '%s'\nusage: %s\n", argv[i], kUsage);
      return 1;
    }
  }
  s2::rtl::RtlPpuSc sc("ppu_sc", 1000);  // before the first sc_start()
  bool ok = true;
  for (uint32_t lanes : {32u, 16u}) {
    auto plain = s2::rtl::make_rtl_ppu(lanes);
    ok = bench(lanes == 32 ? "plain LANES=32" : "plain LANES=16", *plain, elements) && ok;
  }
  ok = bench("SystemC LANES=32", sc, elements / 4) && ok;
  return ok ? 0 : 1;
}
