// RTL PE benchmark and long regression: for each multiply mode (f32, bf16, f16), runs the
// special-value grid and N seeded random (a, b, acc) triples through the verilated pe_mac.sv
// and the C++ reference (fp32_ref.h: isa/numerics), prints the count, the mismatches (with
// operands, both results and the seed) and the speed in simulated PE evaluations per wall
// second. Exits 1 on any mismatch or a bad argument. Speed is not asserted.
//
//   rtl_pe_bench [--seed S] [--count N] [--type f32|bf16|f16]
//   (defaults: seed 1, count 10000000 per type, every type)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_args.h"
#include "isa/encoding/isa_table.h"
#include "rtl_models/pe/pe_mac_check.h"
#include "rtl_models/pe/pe_mac_rtl.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void print_reports(const s2::rtl::MacRunResult& r) {
  for (const std::string& report : r.reports)
    std::printf("  %s\n", report.c_str());
}

// One mode's grid, random triples and RTL-alone speed; returns whether it had no mismatch.
bool run_mode(s2::rtl::RtlPeMac& rtl, s2::isa::DType mode, uint64_t seed, uint64_t count) {
  const std::string name(s2::isa::dtype_name(mode));
  auto start = Clock::now();
  const s2::rtl::MacRunResult special = s2::rtl::run_special_macs(rtl, 10, mode);
  std::printf("%s special-value grid: %llu triples, %llu mismatches (%.2f s)\n", name.c_str(),
              static_cast<unsigned long long>(special.count),
              static_cast<unsigned long long>(special.mismatches), seconds_since(start));
  print_reports(special);

  start = Clock::now();
  const s2::rtl::MacRunResult random = s2::rtl::run_random_macs(rtl, seed, count, 10, mode);
  const double checked_s = seconds_since(start);
  std::printf("%s random (seed %llu): %llu triples, %llu mismatches (%.2f s, %.3g checked/s)\n",
              name.c_str(), static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(random.count),
              static_cast<unsigned long long>(random.mismatches), checked_s,
              static_cast<double>(random.count) / checked_s);
  print_reports(random);

  // RTL alone: operands generated up front, so the rate is the verilated model's.
  const uint64_t rtl_only = count < 2000000 ? count : 2000000;
  std::vector<s2::rtl::MacOperands> ops;
  ops.reserve(rtl_only);
  s2::rtl::MacOperandGenerator gen(seed, mode);
  for (uint64_t i = 0; i < rtl_only; ++i)
    ops.push_back(gen.next());
  uint32_t sink = 0;
  start = Clock::now();
  for (const s2::rtl::MacOperands& o : ops)
    sink ^= rtl.evaluate(o.a, o.b, o.acc, mode).acc_out;
  const double rtl_s = seconds_since(start);
  std::printf(
      "%s RTL pe_mac alone: %llu evaluations in %.3f s = %.3g evaluations per wall second"
      " (checksum 0x%08X)\n",
      name.c_str(), static_cast<unsigned long long>(rtl_only), rtl_s,
      static_cast<double>(rtl_only) / rtl_s, sink);
  return special.mismatches == 0 && random.mismatches == 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  uint64_t count = 10000000;
  std::vector<s2::isa::DType> modes = {s2::isa::DType::F32, s2::isa::DType::BF16,
                                       s2::isa::DType::F16};
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--seed") == 0 && has_value &&
        s2::bench::parse_count(argv[i + 1], 0, UINT64_MAX, seed)) {
      ++i;
    } else if (std::strcmp(argv[i], "--count") == 0 && has_value &&
               s2::bench::parse_count(argv[i + 1], 1, UINT64_MAX, count)) {
      ++i;
    } else if (std::strcmp(argv[i], "--type") == 0 && has_value &&
               (std::strcmp(argv[i + 1], "f32") == 0 || std::strcmp(argv[i + 1], "bf16") == 0 ||
                std::strcmp(argv[i + 1], "f16") == 0)) {
      const std::string type = argv[++i];
      modes = {type == "f32"    ? s2::isa::DType::F32
               : type == "bf16" ? s2::isa::DType::BF16
                                : s2::isa::DType::F16};
    } else {
      std::fprintf(stderr,
                   "rtl_pe_bench: bad argument '%s'\nusage: rtl_pe_bench [--seed S] [--count N] "
                   "[--type f32|bf16|f16]\n",
                   argv[i]);
      return 1;
    }
  }

  s2::rtl::RtlPeMac rtl;
  bool clean = true;
  for (s2::isa::DType mode : modes)
    clean = run_mode(rtl, mode, seed, count) && clean;
  return clean ? 0 : 1;
}
