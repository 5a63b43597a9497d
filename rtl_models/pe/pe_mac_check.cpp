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

const std::vector<uint32_t>& f32_specials() {
  static const std::vector<uint32_t> values = special_values(isa::DType::F32);
  return values;
}
const std::vector<uint32_t>& bf16_specials() {
  static const std::vector<uint32_t> values = special_values(isa::DType::BF16);
  return values;
}
const std::vector<uint32_t>& f16_specials() {
  static const std::vector<uint32_t> values = special_values(isa::DType::F16);
  return values;
}

std::string mode_suffix(isa::DType mode) {
  return mode == isa::DType::F32 ? std::string() : " --type " + std::string(isa::dtype_name(mode));
}

}  // namespace

std::vector<uint32_t> special_values(isa::DType mode) {
  // Positive patterns; each also enters negated.
  std::vector<uint32_t> magnitudes;
  uint32_t sign_bit = 0x80000000u;
  if (mode == isa::DType::BF16) {
    sign_bit = 0x8000u;
    magnitudes = {
        0x0000u,  // zero
        0x0001u,  // min subnormal: an fp32 subnormal once widened, read as zero
        0x007Fu,  // max subnormal
        0x0080u,  // min normal 2^-126
        0x0081u,  // min normal + 1 ulp
        0x7F7Fu,  // max normal
        0x7F00u,  // 2^127
        0x3F80u,  // 1
        0x3F81u,  // 1 + 2^-7
        0x3FFFu,  // 2 - 2^-7: squares to the widest product significand
        0x3FC0u,  // 1.5
        0x3F00u,  // 0.5
        0x4000u,  // 2
        0x1F80u,  // 2^-64: squares to 2^-128 (flushed)
        0x2000u,  // 2^-63: squares to 2^-126
        0x1FFFu,  // just below 2^-63: squares just below 2^-126 (flushed)
        0x5F80u,  // 2^64: squares to 2^128 (overflow)
        0x5F7Fu,  // just below 2^64: squares to fp32's largest binade
        0x7F80u,  // Inf
        0x7FC0u,  // canonical quiet NaN
        0x7FC1u,  // quiet NaN with payload
        0x7F81u,  // signalling NaN, min payload
        0x7FBFu,  // signalling NaN, max payload
        0x7FFFu,  // quiet NaN, max payload
    };
  } else if (mode == isa::DType::F16) {
    sign_bit = 0x8000u;
    magnitudes = {
        0x0000u,  // zero
        0x0001u,  // min subnormal 2^-24: widened to an fp32 normal
        0x03FFu,  // max subnormal
        0x0200u,  // 2^-15, subnormal
        0x0155u,  // a subnormal with scattered bits
        0x0400u,  // min normal 2^-14
        0x0401u,  // min normal + 1 ulp
        0x7BFFu,  // max normal 65504: squares to about 2^32, no fp32 overflow
        0x7800u,  // 32768
        0x3C00u,  // 1
        0x3C01u,  // 1 + 2^-10
        0x3BFFu,  // 1 - 2^-11
        0x3FFFu,  // 2 - 2^-10: squares to the widest product significand
        0x3E00u,  // 1.5
        0x3800u,  // 0.5
        0x4000u,  // 2
        0x7C00u,  // Inf
        0x7E00u,  // canonical quiet NaN
        0x7E01u,  // quiet NaN with payload
        0x7C01u,  // signalling NaN, min payload
        0x7DFFu,  // signalling NaN, max payload
        0x7FFFu,  // quiet NaN, max payload
    };
  } else {
    magnitudes = {
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
  }
  std::vector<uint32_t> values;
  for (uint32_t m : magnitudes) {
    values.push_back(m);
    values.push_back(m | sign_bit);
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

uint32_t MacOperandGenerator::near_one_operand() {
  if (mode_ == isa::DType::BF16) {  // exponent within 2^-12 .. 2^12, 7 fraction bits
    const uint32_t exp = 127u - 12u + next_u32() % 25u;
    return (exp << 7) | (next_u32() & 0x7Fu);
  }
  if (mode_ == isa::DType::F16) {  // exponent within 2^-8 .. 2^8, 10 fraction bits
    const uint32_t exp = 15u - 8u + next_u32() % 17u;
    return (exp << 10) | (next_u32() & 0x3FFu);
  }
  return near_one_magnitude();
}

uint32_t MacOperandGenerator::cancelling(uint32_t a, uint32_t b) {
  const uint32_t p = pe_product(a, b, mode_) ^ 0x80000000u;
  const int32_t delta = static_cast<int32_t>(next_u32() % 9u) - 4;
  return p + static_cast<uint32_t>(delta);  // wraps like a signed step, without UB
}

MacOperands MacOperandGenerator::next() {
  const uint32_t kind = next_u32() % 8u;
  return mode_ == isa::DType::F32 ? next_f32(kind) : next_16(kind);
}

MacOperands MacOperandGenerator::next_16(uint32_t kind) {
  const uint32_t signs = next_u32();
  const auto sign = [&](int i) { return ((signs >> i) & 1u) << 15; };
  MacOperands ops{next_u32() & 0xFFFFu, next_u32() & 0xFFFFu, next_u32()};
  switch (kind) {
    case 0:
    case 1:  // uniform bit patterns
      break;
    case 2:  // similar magnitudes
      ops = {near_one_operand() | sign(0), near_one_operand() | sign(1),
             near_one_magnitude() | (sign(2) << 16)};
      break;
    case 3:
    case 4:  // acc within a few ulps of -(a*b): massive cancellation in the adder
      ops.a = near_one_operand() | sign(0);
      ops.b = near_one_operand() | sign(1);
      ops.acc = cancelling(ops.a, ops.b);
      break;
    case 5:
      if (mode_ == isa::DType::BF16) {
        // a in [2^-67, 2^-9], b the bf16 nearest 2^-126 / a, give or take a few ulps: products
        // on both sides of the underflow boundary.
        const uint32_t a = ((60u + next_u32() % 58u) << 7) | (next_u32() & 0x7Fu);
        const float b =
            static_cast<float>(std::ldexp(1.0, -126) / static_cast<double>(f32_from_bits(a << 16)));
        const int32_t delta = static_cast<int32_t>(next_u32() % 5u) - 2;
        ops.a = a | sign(0);
        ops.b = ((f32_bits(b) >> 16) + static_cast<uint32_t>(delta)) & 0x7FFFu;
        ops.b |= sign(1);
      } else {  // f16: a subnormal times anything (the widening normalises it)
        ops.a = (next_u32() & 0x3FFu) | sign(0);
        ops.b = (next_u32() % 2u == 0 ? next_u32() & 0x3FFu : near_one_operand()) | sign(1);
      }
      ops.acc = next_u32() % 2u == 0 ? ops.acc & 0x80000000u : cancelling(ops.a, ops.b);
      break;
    default: {  // special values mixed with random ones
      const std::vector<uint32_t>& specials = mode_ == isa::DType::BF16  ? bf16_specials()
                                              : mode_ == isa::DType::F16 ? f16_specials()
                                                                         : f32_specials();
      const auto pick = [&](const std::vector<uint32_t>& from) {
        return from[next_u32() % from.size()];
      };
      if (signs & 8u) ops.a = pick(specials);
      if (signs & 16u) ops.b = pick(specials);
      if (signs & 32u) ops.acc = pick(f32_specials());
      break;
    }
  }
  return ops;
}

MacOperands MacOperandGenerator::next_f32(uint32_t kind) {
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
      const std::vector<uint32_t>& specials = f32_specials();
      const auto pick = [&] { return specials[next_u32() % specials.size()]; };
      if (signs & 8u) ops.a = pick();
      if (signs & 16u) ops.b = pick();
      if (signs & 32u) ops.acc = pick();
      break;
    }
  }
  return ops;
}

std::string compare_mac(RtlPeMac& rtl, const MacOperands& ops, isa::DType mode) {
  const PeMacOutputs got = rtl.evaluate(ops.a, ops.b, ops.acc, mode);
  const uint32_t ref_prod = pe_product(ops.a, ops.b, mode);
  const uint32_t ref_acc = fp32_add_ftz(ops.acc, ref_prod);
  if (got.prod == ref_prod && got.acc_out == ref_acc) return {};
  return "pe_mac " + std::string(isa::dtype_name(mode)) + " mismatch: a=" + s2::hex32(ops.a) +
         " b=" + s2::hex32(ops.b) + " acc_in=" + s2::hex32(ops.acc) +
         " | RTL prod=" + s2::hex32(got.prod) + " acc_out=" + s2::hex32(got.acc_out) +
         " | ref prod=" + s2::hex32(ref_prod) + " acc_out=" + s2::hex32(ref_acc);
}

MacRunResult run_random_macs(RtlPeMac& rtl, uint64_t seed, uint64_t count, size_t max_reports,
                             isa::DType mode) {
  MacRunResult result;
  MacOperandGenerator gen(seed, mode);
  for (uint64_t i = 0; i < count; ++i) {
    std::string report = compare_mac(rtl, gen.next(), mode);
    if (!report.empty()) {
      report += " | seed=" + std::to_string(seed) + " index=" + std::to_string(i) +
                " (reproduce: rtl_pe_bench --seed " + std::to_string(seed) + " --count " +
                std::to_string(i + 1) + mode_suffix(mode) + ")";
      record(result, std::move(report), max_reports);
    }
  }
  result.count = count;
  return result;
}

MacRunResult run_special_macs(RtlPeMac& rtl, size_t max_reports, isa::DType mode) {
  MacRunResult result;
  const std::vector<uint32_t> values = special_values(mode);
  uint64_t index = 0;
  for (uint32_t a : values) {
    for (uint32_t b : values) {
      for (uint32_t acc : f32_specials()) {
        std::string report = compare_mac(rtl, {a, b, acc}, mode);
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
