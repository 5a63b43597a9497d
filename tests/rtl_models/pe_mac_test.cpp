// Bit-exact regression of the RTL PE (rtl_models/pe/pe_mac.sv, verilated) against its C++ twin
// (rtl_models/pe/fp32_ref.h), plus the documented corner results of both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "isa/common/float_bits.h"
#include "rtl_models/pe/fp32_ref.h"
#include "rtl_models/pe/pe_mac_check.h"
#include "rtl_models/pe/pe_mac_rtl.h"

namespace s2::rtl {
namespace {

constexpr uint64_t kRandomSeed = 20261121;
constexpr uint64_t kRandomCount = 200000;

void expect_no_mismatch(const MacRunResult& r) {
  EXPECT_EQ(r.mismatches, 0u) << "of " << r.count << " triples";
  for (const std::string& report : r.reports)
    ADD_FAILURE() << report;
}

// Expected results written from the contract in fp32_mul.sv / fp32_add.sv, checked on both sides.
struct Documented {
  const char* what;
  uint32_t a, b, acc;
  uint32_t prod, acc_out;
};

TEST(RtlPeMac, DocumentedCornerResults) {
  const Documented cases[] = {
      {"1*1+1", 0x3F800000, 0x3F800000, 0x3F800000, 0x3F800000, 0x40000000},
      {"two roundings, not fused: (1+2^-23)^2 - (1+2^-22)", 0x3F800001, 0x3F800001, 0xBF800002,
       0x3F800002, 0x00000000},
      {"tie 1 + 2^-24 rounds to even 1", 0x33800000, 0x3F800000, 0x3F800000, 0x33800000,
       0x3F800000},
      {"tie 1 + 3*2^-24 rounds to even 1+2^-22", 0x34400000, 0x3F800000, 0x3F800000, 0x34400000,
       0x3F800002},
      {"subnormal input read as +0", 0x00000001, 0x3F800000, 0x80000000, 0x00000000, 0x00000000},
      {"subnormal input read as -0", 0x807FFFFF, 0x3F800000, 0x80000000, 0x80000000, 0x80000000},
      {"product 2^-128 flushed, sign kept", 0x9F800000, 0x1F800000, 0x80000000, 0x80000000,
       0x80000000},
      {"product 2^-126 - 2^-150 (tie) rounds up to min normal", 0x3F7FFFFF, 0x00800000, 0x00000000,
       0x00800000, 0x00800000},
      {"product 2^-126 - 2^-149 is subnormal: flushed", 0x3F7FFFFE, 0x00800000, 0x00000000,
       0x00000000, 0x00000000},
      {"subnormal difference flushed with its sign", 0x3F800000, 0x00800000, 0x80800001, 0x00800000,
       0x80000000},
      {"x + (-x) = +0", 0x3F800000, 0x40000000, 0xC0000000, 0x40000000, 0x00000000},
      {"-0 + -0 = -0", 0x80000000, 0x3F800000, 0x80000000, 0x80000000, 0x80000000},
      {"overflow to Inf", 0x7F7FFFFF, 0x40000000, 0x00000000, 0x7F800000, 0x7F800000},
      {"Inf * 0 is the canonical NaN", 0x7F800000, 0x00000000, 0x3F800000, kCanonicalNaN,
       kCanonicalNaN},
      {"Inf * subnormal (read as 0) is NaN", 0xFF800000, 0x00000001, 0x3F800000, kCanonicalNaN,
       kCanonicalNaN},
      {"Inf + -Inf is NaN", 0x7F800000, 0x3F800000, 0xFF800000, 0x7F800000, kCanonicalNaN},
      {"NaN payload and sign dropped", 0xFFC12345, 0x3F800000, 0x3F800000, kCanonicalNaN,
       kCanonicalNaN},
      {"signalling NaN accumulator", 0x3F800000, 0x3F800000, 0x7F800001, 0x3F800000, kCanonicalNaN},
      {"-Inf * 2 + 1 = -Inf", 0xFF800000, 0x40000000, 0x3F800000, 0xFF800000, 0xFF800000},
  };
  RtlPeMac rtl;
  for (const Documented& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(fp32_mul_ftz(c.a, c.b), c.prod);
    EXPECT_EQ(pe_mac(c.a, c.b, c.acc), c.acc_out);
    const PeMacOutputs got = rtl.evaluate(c.a, c.b, c.acc);
    EXPECT_EQ(got.prod, c.prod);
    EXPECT_EQ(got.acc_out, c.acc_out);
  }
}

// The 16-bit multiply modes (pe_mac.sv's mode input; fp16_widen.sv): the widening rules and
// the exactness of 16-bit products, written down from isa/numerics/low_precision.h.
struct Documented16 {
  const char* what;
  isa::DType mode;
  uint32_t a, b, acc;
  uint32_t prod, acc_out;
};

TEST(RtlPeMac, DocumentedSixteenBitResults) {
  constexpr isa::DType kBf16 = isa::DType::BF16, kF16 = isa::DType::F16;
  const Documented16 cases[] = {
      {"bf16 1*1+1", kBf16, 0x3F80, 0x3F80, 0x3F800000, 0x3F800000, 0x40000000},
      {"bf16: the upper 16 bits are ignored", kBf16, 0xFFFF3F80, 0x12343F80, 0, 0x3F800000,
       0x3F800000},
      {"bf16 (2-2^-7)^2 is exact", kBf16, 0x3FFF, 0x3FFF, 0, 0x407E0100, 0x407E0100},
      {"bf16 subnormal reads as zero", kBf16, 0x0001, 0x3F80, 0, 0x00000000, 0x00000000},
      {"bf16 2^64 * 2^64 overflows", kBf16, 0x5F80, 0x5F80, 0, 0x7F800000, 0x7F800000},
      {"bf16 2^-64 * -2^-64 is flushed", kBf16, 0x1F80, 0x9F80, 0, 0x80000000, 0x00000000},
      {"bf16 NaN payload is dropped", kBf16, 0xFFC1, 0x3F80, 0, 0x7FC00000, 0x7FC00000},
      {"f16 1*1+1", kF16, 0x3C00, 0x3C00, 0x3F800000, 0x3F800000, 0x40000000},
      {"f16 min subnormal * 1 is kept", kF16, 0x0001, 0x3C00, 0, 0x33800000, 0x33800000},
      {"f16 min subnormal squared is 2^-48", kF16, 0x0001, 0x0001, 0, 0x27800000, 0x27800000},
      {"f16 subnormal 1.5 * 2^-24", kF16, 0x0001, 0x3E00, 0, 0x33C00000, 0x33C00000},
      {"f16 65504^2 is exact", kF16, 0x7BFF, 0x7BFF, 0, 0x4F7FC004, 0x4F7FC004},
      {"f16 (2-2^-10)^2 is exact", kF16, 0x3FFF, 0x3FFF, 0, 0x407FC004, 0x407FC004},
      {"f16 Inf * 0 is NaN", kF16, 0x7C00, 0x0000, 0, 0x7FC00000, 0x7FC00000},
      {"f16 -Inf * 2 is -Inf", kF16, 0xFC00, 0x4000, 0, 0xFF800000, 0xFF800000},
      {"f16 NaN payload is dropped", kF16, 0x7E01, 0x3C00, 0, 0x7FC00000, 0x7FC00000},
  };
  RtlPeMac rtl;
  for (const Documented16& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(pe_product(c.a, c.b, c.mode), c.prod) << "reference";
    EXPECT_EQ(fp32_add_ftz(c.acc, pe_product(c.a, c.b, c.mode)), c.acc_out) << "reference";
    const PeMacOutputs got = rtl.evaluate(c.a, c.b, c.acc, c.mode);
    EXPECT_EQ(got.prod, c.prod) << "RTL";
    EXPECT_EQ(got.acc_out, c.acc_out) << "RTL";
  }
}

// Every bf16 and every fp16 pattern widens in the RTL exactly as isa/numerics widens it (the
// product with 1 is the widened value itself, except where fp32_mul flushes a subnormal).
TEST(RtlPeMac, EverySixteenBitPatternWidensAsTheNumericsSay) {
  RtlPeMac rtl;
  for (const isa::DType mode : {isa::DType::BF16, isa::DType::F16}) {
    const uint32_t one = mode == isa::DType::BF16 ? 0x3F80u : 0x3C00u;
    uint64_t mismatches = 0;
    for (uint32_t x = 0; x <= 0xFFFFu; ++x)
      if (rtl.evaluate(x, one, 0, mode).prod != pe_product(x, one, mode) && mismatches++ < 5)
        ADD_FAILURE() << isa::dtype_name(mode) << " pattern 0x" << std::hex << x;
    EXPECT_EQ(mismatches, 0u) << isa::dtype_name(mode);
  }
}

class SixteenBitMode : public ::testing::TestWithParam<isa::DType> {};

TEST_P(SixteenBitMode, SpecialValueGridMatchesReference) {
  RtlPeMac rtl;
  const MacRunResult r = run_special_macs(rtl, 10, GetParam());
  EXPECT_EQ(r.count, special_values(GetParam()).size() * special_values(GetParam()).size() * 64u);
  expect_no_mismatch(r);
}

TEST_P(SixteenBitMode, RandomTriplesMatchReference) {
  RtlPeMac rtl;
  const MacRunResult r = run_random_macs(rtl, kRandomSeed, kRandomCount, 10, GetParam());
  EXPECT_EQ(r.count, kRandomCount);
  expect_no_mismatch(r);
}

// The 16-bit mixtures reach flushed and overflowing products, f16 subnormal multiplicands,
// cancellations and NaNs.
TEST_P(SixteenBitMode, RandomTriplesCoverTheCorners) {
  const isa::DType mode = GetParam();
  MacOperandGenerator gen(kRandomSeed, mode);
  int flushed = 0, overflow = 0, subnormal_in = 0, cancellation = 0, nan = 0;
  const auto exp_of = [](uint32_t x) { return static_cast<int>((x >> 23) & 0xFFu); };
  for (uint64_t i = 0; i < kRandomCount; ++i) {
    const MacOperands o = gen.next();
    const uint32_t wa = pe_operand(o.a, mode), wb = pe_operand(o.b, mode);
    const uint32_t prod = pe_product(o.a, o.b, mode);
    const uint32_t acc_out = fp32_add_ftz(o.acc, prod);
    const bool finite_in = exp_of(wa) != 255 && exp_of(wb) != 255;
    if (finite_in && exp_of(wa) != 0 && exp_of(wb) != 0 && (prod & 0x7FFFFFFFu) == 0) ++flushed;
    if (finite_in && exp_of(prod) == 255) ++overflow;
    if ((mode == isa::DType::F16 && ((o.a >> 10) & 0x1Fu) == 0 && (o.a & 0x3FFu) != 0)) {
      ++subnormal_in;
    }
    if (exp_of(o.acc) != 0 && exp_of(prod) != 0 && (acc_out & 0x7FFFFFFFu) != 0 &&
        exp_of(acc_out) + 8 < std::max(exp_of(o.acc), exp_of(prod))) {
      ++cancellation;
    }
    if (acc_out == kCanonicalNaN) ++nan;
  }
  if (mode == isa::DType::BF16) {
    EXPECT_GE(flushed, 1000);
    EXPECT_GE(overflow, 1000);
  } else {
    EXPECT_GE(subnormal_in, 10000);
  }
  EXPECT_GE(cancellation, 1000);
  EXPECT_GE(nan, 1000);
  std::printf(
      "%s coverage of %llu triples: %d flushed products, %d overflowing products, %d "
      "subnormal multiplicands, %d cancellations of > 8 binades, %d NaN results\n",
      std::string(isa::dtype_name(mode)).c_str(), static_cast<unsigned long long>(kRandomCount),
      flushed, overflow, subnormal_in, cancellation, nan);
}

INSTANTIATE_TEST_SUITE_P(RtlPeMac, SixteenBitMode,
                         ::testing::Values(isa::DType::BF16, isa::DType::F16),
                         [](const ::testing::TestParamInfo<isa::DType>& mode) {
                           return std::string(isa::dtype_name(mode.param));
                         });

TEST(RtlPeMac, SpecialValueGridMatchesReference) {
  RtlPeMac rtl;
  const MacRunResult r = run_special_macs(rtl, 10);
  EXPECT_EQ(r.count, 64u * 64u * 64u);
  expect_no_mismatch(r);
}

// Products just below 2^-126: the host (IEEE) rounds them with the subnormal format's precision,
// so some round UP to the smallest normal and are kept, even ones that rounding with an unbounded
// exponent would leave subnormal (24 significand bits set, guard bit clear). The RTL must agree.
TEST(RtlPeMac, UnderflowBoundaryOfTheMultiplier) {
  RtlPeMac rtl;
  const double min_normal = std::ldexp(1.0, -126);
  const double tie = min_normal - std::ldexp(1.0, -150);            // rounds up (to even)
  const double unbounded_tie = min_normal - std::ldexp(1.0, -151);  // the unbounded-range tie
  int kept_below = 0, kept_only_by_ieee = 0, flushed_below = 0;
  for (uint32_t frac = 0; frac < (1u << 23); frac += 4099) {
    const uint32_t a = ((127u - 40u) << 23) | frac;  // [2^-40, 2^-39): b near 2^-86 is normal
    const float b0 = static_cast<float>(min_normal / static_cast<double>(f32_from_bits(a)));
    const uint32_t b0_bits = f32_bits(b0);
    for (int32_t d = -3; d <= 3; ++d) {
      const uint32_t b = static_cast<uint32_t>(static_cast<int32_t>(b0_bits) + d);
      const double exact =
          static_cast<double>(f32_from_bits(a)) * static_cast<double>(f32_from_bits(b));
      const uint32_t ref = fp32_mul_ftz(a, b);
      ASSERT_EQ(rtl.evaluate(a, b, 0).prod, ref) << std::hex << "a=0x" << a << " b=0x" << b;
      if (exact >= min_normal) continue;
      if (exact >= tie) {
        EXPECT_EQ(ref, 0x00800000u);
        ++kept_below;
        if (exact < unbounded_tie) ++kept_only_by_ieee;
      } else {
        EXPECT_EQ(ref, 0x00000000u);
        ++flushed_below;
      }
    }
  }
  EXPECT_GT(kept_below, 0);
  EXPECT_GT(kept_only_by_ieee, 0);
  EXPECT_GT(flushed_below, 0);
}

TEST(RtlPeMac, RandomTriplesMatchReference) {
  RtlPeMac rtl;
  const MacRunResult r = run_random_macs(rtl, kRandomSeed, kRandomCount, 10);
  EXPECT_EQ(r.count, kRandomCount);
  expect_no_mismatch(r);
}

// The random mixture reaches the corners that uniform bit patterns almost never hit.
TEST(RtlPeMac, RandomTriplesCoverTheCorners) {
  MacOperandGenerator gen(kRandomSeed);
  const auto exp_of = [](uint32_t x) { return static_cast<int>((x >> 23) & 0xFFu); };
  int min_normal_round_up = 0, flushed_sum = 0, cancellation = 0, overflow = 0, nan = 0;
  for (uint64_t i = 0; i < kRandomCount; ++i) {
    const MacOperands o = gen.next();
    const uint32_t prod = fp32_mul_ftz(o.a, o.b);
    const uint32_t acc_out = fp32_add_ftz(o.acc, prod);
    const bool normal_in =
        exp_of(o.a) != 0 && exp_of(o.a) != 255 && exp_of(o.b) != 0 && exp_of(o.b) != 255;
    if (normal_in && (prod & 0x7FFFFFFFu) == 0x00800000u &&
        std::fabs(static_cast<double>(f32_from_bits(o.a)) *
                  static_cast<double>(f32_from_bits(o.b))) < std::ldexp(1.0, -126)) {
      ++min_normal_round_up;
    }
    const float unflushed_sum = f32_from_bits(o.acc) + f32_from_bits(prod);
    if (exp_of(o.acc) != 0 && std::fpclassify(unflushed_sum) == FP_SUBNORMAL) ++flushed_sum;
    if (exp_of(o.acc) != 0 && exp_of(prod) != 0 && (acc_out & 0x7FFFFFFFu) != 0 &&
        exp_of(acc_out) + 8 < std::max(exp_of(o.acc), exp_of(prod))) {
      ++cancellation;
    }
    if (normal_in && exp_of(o.acc) != 255 && exp_of(acc_out) == 255 && acc_out != kCanonicalNaN) {
      ++overflow;
    }
    if (acc_out == kCanonicalNaN) ++nan;
  }
  EXPECT_GE(min_normal_round_up, 50);
  EXPECT_GE(flushed_sum, 50);
  EXPECT_GE(cancellation, 1000);
  EXPECT_GE(overflow, 1000);
  EXPECT_GE(nan, 1000);
  std::printf(
      "coverage of %llu triples: %d products rounded up to 2^-126, %d subnormal sums "
      "flushed, %d cancellations of > 8 binades, %d overflows, %d NaN results\n",
      static_cast<unsigned long long>(kRandomCount), min_normal_round_up, flushed_sum, cancellation,
      overflow, nan);
}

// The regression can fail: with the host in a wrong rounding mode the reference rounds the
// wrong way, and the comparison must catch it and report operands, both results and the seed.
class WrongRoundingMode : public ::testing::TestWithParam<int> {};

TEST_P(WrongRoundingMode, IsCaught) {
  RtlPeMac rtl;
  const int saved = std::fegetround();
  ASSERT_EQ(std::fesetround(GetParam()), 0);
  const MacRunResult r = run_random_macs(rtl, kRandomSeed, 20000, 1);
  std::fesetround(saved);
  EXPECT_GT(r.mismatches, 1000u) << "of " << r.count;
  ASSERT_FALSE(r.reports.empty());
  const std::string& report = r.reports.front();
  EXPECT_NE(report.find("a=0x"), std::string::npos) << report;
  EXPECT_NE(report.find("RTL prod=0x"), std::string::npos) << report;
  EXPECT_NE(report.find("ref prod=0x"), std::string::npos) << report;
  EXPECT_NE(report.find("seed=20261121"), std::string::npos) << report;
}

INSTANTIATE_TEST_SUITE_P(RtlPeMac, WrongRoundingMode,
                         ::testing::Values(FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD),
                         [](const ::testing::TestParamInfo<int>& mode) {
                           return mode.param == FE_TOWARDZERO ? std::string("TowardZero")
                                  : mode.param == FE_UPWARD   ? std::string("Upward")
                                                              : std::string("Downward");
                         });

}  // namespace
}  // namespace s2::rtl
