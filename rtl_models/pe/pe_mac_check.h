#pragma once
// The bit-exact regression of the RTL PE (pe_mac.sv) against its C++ twin (fp32_ref.h):
// operand sources (special values, seeded random triples) and the comparison, shared by the
// GoogleTest suite (tests/rtl_models/pe_mac_test.cpp) and the benchmark
// (tests/bench/rtl_pe_bench.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "rtl_models/pe/pe_mac_rtl.h"

namespace s2::rtl {

struct MacOperands {
  uint32_t a;
  uint32_t b;
  uint32_t acc;
};

// ±0, ±min/max subnormal, ±min/max normal, ±1, ±Inf, quiet and signalling NaNs with payloads,
// and values around rounding ties and the underflow boundary.
std::vector<uint32_t> special_values();

// Deterministic random triples for a seed: a mixture of uniform bit patterns, operands of
// similar magnitude, cancelling accumulators (acc close to -a*b), products near 2^-126 and
// special values mixed into random ones.
class MacOperandGenerator {
 public:
  explicit MacOperandGenerator(uint64_t seed) : state_(seed) {}
  MacOperands next();

 private:
  uint64_t next_u64();
  uint32_t next_u32() { return static_cast<uint32_t>(next_u64() >> 32); }
  uint32_t near_one_magnitude();
  uint64_t state_;
};

// Compares one triple; returns "" when RTL and reference agree on both prod and acc_out,
// otherwise a report naming the operands and both sides' results in hex. The run_* functions
// append where the triple came from (seed and index, or the special-value grid index).
std::string compare_mac(RtlPeMac& rtl, const MacOperands& ops);

struct MacRunResult {
  uint64_t count = 0;
  uint64_t mismatches = 0;
  std::vector<std::string> reports;  // the first few mismatch reports
};

// Runs `count` triples of MacOperandGenerator(seed) through both sides.
MacRunResult run_random_macs(RtlPeMac& rtl, uint64_t seed, uint64_t count, size_t max_reports);

// Runs every (a, b, acc) triple of special_values() through both sides (seed reported as 0).
MacRunResult run_special_macs(RtlPeMac& rtl, size_t max_reports);

}  // namespace s2::rtl
