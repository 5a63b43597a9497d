#include "rtl_models/pe/pe_mac_check.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "isa/common/float_bits.h"
#include "isa/common/hex.h"
#include "rtl_models/pe/fp32_ref.h"

namespace s2::rtl {
namespace {

void record(MacRunResult& result, std::string report, size_t max_reports) {
  ++result.mismatches;
  if (result.reports.size() < max_reports) result.reports.push_back(std::move(report));
}

}  // namespace

std::vector<uint32_t> special_values() {
  const uint32_t magnitudes[] = {
      0x00000000u,  // zero
      0x00000001u,  // min subnormal
      0x007FFFFFu,  // max subnormal
      0x00800000u,  // min normal
      0x00800001u,  // min normal + 1 ulp
      0x00FFFFFFu,  // 2^-125 - ulp
      0x7F7FFFFFu,  // max normal
      0x7F000000u,  // 2^127
      0x3F800000u,  // 1
      0x3F800001u,  // 1 + 2^-23: squares to a tie-breaking sticky case
      0x3F7FFFFFu,  // 1 - 2^-24: times min normal is the tie 2^-126 - 2^-150
      0x3F7FFFFEu,  // 1 - 2^-23
      0x3FC00000u,  // 1.5
      0x3F000000u,  // 0.5
      0x40000000u,  // 2
      0x33800000u,  // 2^-24: 1 + 2^-24 is a tie to even
      0x33800001u,  // just above that tie
      0x34000000u,  // 2^-23 (1 ulp of 1)
      0x34400000u,  // 1.5 ulp of 1: tie to even upwards
      0x4B800000u,  // 2^24
      0x4B7FFFFFu,  // 2^24 - 1
      0x3FB504F3u,  // ~sqrt(2)
      0x3FB504F4u,  // ~sqrt(2) + ulp
      0x1F800000u,  // 2^-64: squares to 2^-128 (subnormal, flushed)
      0x20000000u,  // 2^-63: squares to 2^-126
      0x5F800000u,  // 2^64: squares to 2^128 (overflow)
      0x7F800000u,  // Inf
      0x7FC00000u,  // canonical quiet NaN
      0x7FC12345u,  // quiet NaN with payload
      0x7F800001u,  // signalling NaN, min payload
      0x7FBFFFFFu,  // signalling NaN, max payload
      0x7FFFFFFFu,  // quiet NaN, max payload
  };
  std::vector<uint32_t> values;
  for (uint32_t m : magnitudes) {
    values.push_back(m);
    values.push_back(m | 0x80000000u);
  }
  return values;
}

uint64_t MacOperandGenerator::next_u64() {
  // splitmix64: tiny, fast and identical on every platform.
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t MacOperandGenerator::near_one_magnitude() {
  // Exponent within 2^-12 .. 2^12 of 1: products and sums keep their significands interacting.
  const uint32_t exp = 127u - 12u + next_u32() % 25u;
  return (exp << 23) | (next_u32() & 0x007FFFFFu);
}

MacOperands MacOperandGenerator::next() {
  const uint32_t kind = next_u32() % 8u;
  const uint32_t signs = next_u32();
  const auto sign = [&](int i) { return ((signs >> i) & 1u) << 31; };
  MacOperands ops{next_u32(), next_u32(), next_u32()};
  switch (kind) {
    case 0:
    case 1:  // uniform bit patterns
      break;
    case 2:  // similar magnitudes
      ops = {near_one_magnitude() | sign(0), near_one_magnitude() | sign(1),
             near_one_magnitude() | sign(2)};
      break;
    case 3:
    case 4: {  // acc within a few ulps of -(a*b): massive cancellation in the adder
      ops.a = near_one_magnitude() | sign(0);
      ops.b = near_one_magnitude() | sign(1);
      const uint32_t p = fp32_mul_ftz(ops.a, ops.b) ^ 0x80000000u;
      const int32_t delta = static_cast<int32_t>(next_u32() % 9u) - 4;
      ops.acc = p + static_cast<uint32_t>(delta);  // wraps like a signed step, without UB
      break;
    }
    case 5: {  // product near the underflow boundary 2^-126
      // a in [2^-67, 2^-9] keeps b = 2^-126 / a normal (a subnormal b would just read as 0).
      const uint32_t a = ((60u + next_u32() % 58u) << 23) | (next_u32() & 0x007FFFFFu);
      const float b =
          static_cast<float>(std::ldexp(1.0, -126) / static_cast<double>(f32_from_bits(a)));
      const int32_t delta = static_cast<int32_t>(next_u32() % 5u) - 2;
      ops.a = a | sign(0);
      // Unsigned wrap-around: the same bits as a signed step, without signed overflow.
      ops.b = (f32_bits(b) + static_cast<uint32_t>(delta)) | sign(1);
      if (next_u32() % 2u == 0) {
        ops.acc &= 0x80000000u;  // add to a zero
      } else {  // or nearly cancel: the exact sum is then often subnormal (flushed)
        const uint32_t p = fp32_mul_ftz(ops.a, ops.b) ^ 0x80000000u;
        ops.acc = p + static_cast<uint32_t>(delta);
      }
      break;
    }
    default: {  // special values mixed with random ones
      static const std::vector<uint32_t> specials = special_values();
      const auto pick = [&] { return specials[next_u32() % specials.size()]; };
      if (signs & 8u) ops.a = pick();
      if (signs & 16u) ops.b = pick();
      if (signs & 32u) ops.acc = pick();
      break;
    }
  }
  return ops;
}

std::string compare_mac(RtlPeMac& rtl, const MacOperands& ops) {
  const PeMacOutputs got = rtl.evaluate(ops.a, ops.b, ops.acc);
  const uint32_t ref_prod = fp32_mul_ftz(ops.a, ops.b);
  const uint32_t ref_acc = fp32_add_ftz(ops.acc, ref_prod);
  if (got.prod == ref_prod && got.acc_out == ref_acc) return {};
  return "pe_mac mismatch: a=" + s2::hex32(ops.a) + " b=" + s2::hex32(ops.b) +
         " acc_in=" + s2::hex32(ops.acc) + " | RTL prod=" + s2::hex32(got.prod) +
         " acc_out=" + s2::hex32(got.acc_out) + " | ref prod=" + s2::hex32(ref_prod) +
         " acc_out=" + s2::hex32(ref_acc);
}

MacRunResult run_random_macs(RtlPeMac& rtl, uint64_t seed, uint64_t count, size_t max_reports) {
  MacRunResult result;
  MacOperandGenerator gen(seed);
  for (uint64_t i = 0; i < count; ++i) {
    std::string report = compare_mac(rtl, gen.next());
    if (!report.empty()) {
      report += " | seed=" + std::to_string(seed) + " index=" + std::to_string(i) +
                " (reproduce: rtl_pe_bench --seed " + std::to_string(seed) + " --count " +
                std::to_string(i + 1) + ")";
      record(result, std::move(report), max_reports);
    }
  }
  result.count = count;
  return result;
}

MacRunResult run_special_macs(RtlPeMac& rtl, size_t max_reports) {
  MacRunResult result;
  const std::vector<uint32_t> values = special_values();
  uint64_t index = 0;
  for (uint32_t a : values) {
    for (uint32_t b : values) {
      for (uint32_t acc : values) {
        std::string report = compare_mac(rtl, {a, b, acc});
        if (!report.empty()) {
          record(result, report + " | special-value grid index=" + std::to_string(index),
                 max_reports);
        }
        ++index;
      }
    }
  }
  result.count = index;
  return result;
}

}  // namespace s2::rtl
