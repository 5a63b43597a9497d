#pragma once
// The bit-exact regression of the RTL PE (pe_mac.sv) against its C++ twin (fp32_ref.h), in
// each multiply mode (f32, bf16, f16: the multiplicands' type; the accumulator is always f32):
// operand sources (special values, seeded random triples) and the comparison, shared by the
// GoogleTest suite (tests/rtl_models/pe_mac_test.cpp) and the benchmark
// (tests/bench/rtl_pe_bench.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "rtl_models/pe/pe_mac_rtl.h"

namespace s2::rtl {

// a and b are patterns of the mode's type (16-bit ones in bits 15:0), acc an f32 pattern.
struct MacOperands {
  uint32_t a;
  uint32_t b;
  uint32_t acc;
};

// The special patterns of `mode`'s type: ±0, ±min/max subnormal, ±min/max normal, ±1, ±Inf,
// quiet and signalling NaNs with payloads, and values around rounding ties and the range ends
// of products. special_values() (f32) also serves as the accumulator grid of every mode.
std::vector<uint32_t> special_values(isa::DType mode = isa::DType::F32);

// Deterministic random triples for a seed and mode: a mixture of uniform bit patterns,
// operands of similar magnitude, cancelling accumulators (acc close to -a*b), products near
// 2^-126 (f16: subnormal multiplicands, whose products never reach it) and special values
// mixed into random ones.
class MacOperandGenerator {
 public:
  explicit MacOperandGenerator(uint64_t seed, isa::DType mode = isa::DType::F32)
      : state_(seed), mode_(mode) {}
  MacOperands next();

 private:
  uint64_t next_u64();
  uint32_t next_u32() { return static_cast<uint32_t>(next_u64() >> 32); }
  uint32_t near_one_magnitude();
  // A multiplicand of the mode's type with its exponent within 2^-e .. 2^e of 1.
  uint32_t near_one_operand();
  // acc within a few ulps of -(a*b).
  uint32_t cancelling(uint32_t a, uint32_t b);
  MacOperands next_f32(uint32_t kind);
  MacOperands next_16(uint32_t kind);
  uint64_t state_;
  isa::DType mode_;
};

// Compares one triple in `mode`; returns "" when RTL and reference agree on both prod and
// acc_out, otherwise a report naming the mode, the operands and both sides' results in hex.
// The run_* functions append where the triple came from (seed and index, or the special-value
// grid index).
std::string compare_mac(RtlPeMac& rtl, const MacOperands& ops, isa::DType mode = isa::DType::F32);

struct MacRunResult {
  uint64_t count = 0;
  uint64_t mismatches = 0;
  std::vector<std::string> reports;  // the first few mismatch reports
};

// Runs `count` triples of MacOperandGenerator(seed, mode) through both sides.
MacRunResult run_random_macs(RtlPeMac& rtl, uint64_t seed, uint64_t count, size_t max_reports,
                             isa::DType mode = isa::DType::F32);

// Runs every (a, b, acc) triple of special_values(mode)^2 x special_values() through both
// sides.
MacRunResult run_special_macs(RtlPeMac& rtl, size_t max_reports, isa::DType mode = isa::DType::F32);

}  // namespace s2::rtl
