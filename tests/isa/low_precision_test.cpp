// The 16-bit formats of the datapath (isa/numerics/low_precision.h): every encoding widened
// and rounded back, every rounding boundary of both formats from both sides, the special
// values, against an independent reference that rounds in double; and the exactness of PE
// products of widened operands, exhaustively over the significands.
#include "isa/numerics/low_precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "isa/common/float_bits.h"
#include "isa/numerics/fp32.h"

namespace s2::numerics {
namespace {

struct Format {
  const char* name;
  int fraction_bits;
  int min_exponent;  // of the normals; below it the format is subnormal (fp16) or absent
  double max_finite;
  uint16_t (*from_f32)(float);
  float (*to_f32)(uint16_t);
  uint16_t exponent_mask;
};

const Format kBf16{"bf16", 7, -126, std::ldexp(255.0, 120), bf16_from_f32, bf16_to_f32, 0x7F80};
const Format kF16{"f16", 10, -14, 65504.0, f16_from_f32, f16_to_f32, 0x7C00};

// Round-to-nearest-even of a finite datapath value into the format, in double (exact: the
// scaling by powers of two and the rounding to an integer lose nothing). Infinity past the
// largest finite value's rounding range.
double reference_round(const Format& f, float v) {
  const double x = v;
  if (x == 0.0) return x;
  const int e = std::max(std::ilogb(x), f.min_exponent);
  const double quantum = std::ldexp(1.0, e - f.fraction_bits);
  const double r = std::nearbyint(x / quantum) * quantum;
  if (std::fabs(r) > f.max_finite) return std::copysign(INFINITY, x);
  return r == 0.0 ? std::copysign(0.0, x) : r;
}

// The format's result for v, widened, must be the reference's value with the reference's sign.
void expect_rounds_like_reference(const Format& f, float v) {
  const float ours = f.to_f32(f.from_f32(v));
  const double want = reference_round(f, v);
  ASSERT_EQ(static_cast<double>(ours), want)
      << f.name << " of " << std::hexfloat << v << " (bits 0x" << std::hex << f32_bits(v) << ")";
  ASSERT_EQ(std::signbit(ours), std::signbit(want)) << f.name << " of " << std::hexfloat << v;
}

bool is_nan16(const Format& f, uint16_t bits) {
  return (bits & f.exponent_mask) == f.exponent_mask && (bits & ~f.exponent_mask & 0x7FFF) != 0;
}

TEST(LowPrecision, EveryEncodingWidensAndRoundsBackToItself) {
  for (const Format* f : {&kBf16, &kF16}) {
    for (uint32_t b = 0; b <= 0xFFFF; ++b) {
      const auto bits = static_cast<uint16_t>(b);
      const float wide = f->to_f32(bits);
      if (is_nan16(*f, bits)) {
        ASSERT_EQ(f32_bits(wide), kCanonicalNaN) << f->name << " 0x" << std::hex << b;
        continue;
      }
      const bool bf16_subnormal = f == &kBf16 && (bits & 0x7F80) == 0 && (bits & 0x7F) != 0;
      if (bf16_subnormal) {
        // As fp32 subnormals do, they read as zero of their sign (DAZ).
        ASSERT_EQ(f32_bits(wide), uint32_t{bits & 0x8000u} << 16) << "bf16 0x" << std::hex << b;
        continue;
      }
      ASSERT_EQ(f->from_f32(wide), bits) << f->name << " 0x" << std::hex << b;
    }
  }
}

TEST(LowPrecision, WideningIsExact) {
  // fp16: sign, exponent and fraction land where IEEE says, subnormals included.
  EXPECT_EQ(f16_to_f32(0x3C00), 1.0f);
  EXPECT_EQ(f16_to_f32(0xC000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x7BFF), 65504.0f);
  EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_f32(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(f32_bits(f16_to_f32(0x8000)), 0x80000000u);
  EXPECT_EQ(f16_to_f32(0x7C00), INFINITY);
  EXPECT_EQ(f16_to_f32(0xFC00), -INFINITY);
  // bf16 is fp32's top half.
  EXPECT_EQ(bf16_to_f32(0x3F80), 1.0f);
  EXPECT_EQ(f32_bits(bf16_to_f32(0x7F7F)), 0x7F7F0000u);
  EXPECT_EQ(f32_bits(bf16_to_f32(0xFF80)), 0xFF800000u);
}

TEST(LowPrecision, EveryRoundingBoundaryFromBothSides) {
  // For each pair of neighbouring finite encodings, the fp32 midpoint (a tie) and its fp32
  // neighbours on either side, with both signs. Covers the overflow threshold (the midpoint
  // past the largest finite value), fp16's subnormal steps and the underflow to zero.
  for (const Format* f : {&kBf16, &kF16}) {
    const uint16_t top = static_cast<uint16_t>(f->exponent_mask - 1);  // largest finite
    for (uint32_t b = 0; b <= top; ++b) {
      const double lo = f->to_f32(static_cast<uint16_t>(b));
      const double hi = b == top ? std::ldexp(1.0, f == &kBf16 ? 128 : 16)
                                 : static_cast<double>(f->to_f32(static_cast<uint16_t>(b + 1)));
      if (b != top && lo == hi) continue;  // bf16 subnormals, all zero in the datapath
      const auto mid = static_cast<float>((lo + hi) / 2);
      ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2) << "midpoint must be exact in fp32";
      for (const float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
        if (!std::isfinite(v) || f32_bits(load(v)) != f32_bits(v)) continue;
        expect_rounds_like_reference(*f, v);
        expect_rounds_like_reference(*f, -v);
      }
    }
  }
}

TEST(LowPrecision, SpecialValues) {
  // NaNs of any sign and payload become the canonical quiet NaN.
  for (const uint32_t nan : {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0xFFBFFFFFu}) {
    EXPECT_EQ(bf16_from_f32(f32_from_bits(nan)), kBf16CanonicalNaN);
    EXPECT_EQ(f16_from_f32(f32_from_bits(nan)), kF16CanonicalNaN);
  }
  EXPECT_EQ(bf16_from_f32(INFINITY), 0x7F80);
  EXPECT_EQ(bf16_from_f32(-INFINITY), 0xFF80);
  EXPECT_EQ(f16_from_f32(-INFINITY), 0xFC00);
  EXPECT_EQ(bf16_from_f32(-0.0f), 0x8000);
  EXPECT_EQ(f16_from_f32(-0.0f), 0x8000);
  // Overflow: fp16 65520 is the tie between 65504 and 2^16, and goes to infinity.
  EXPECT_EQ(f16_from_f32(65519.996f), 0x7BFF);
  EXPECT_EQ(f16_from_f32(65520.0f), 0x7C00);
  EXPECT_EQ(f16_from_f32(-1e30f), 0xFC00);
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x7F7FFFFFu)), 0x7F80);
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x7F7F7FFFu)), 0x7F7F);
  // fp16 underflow: 2^-25 is the tie between 0 and the smallest subnormal: even, so zero;
  // anything above it rounds up to 2^-24.
  EXPECT_EQ(f16_from_f32(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(f16_from_f32(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(f16_from_f32(-std::ldexp(3.0f, -26)), 0x8001);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(f16_from_f32(std::ldexp(2047.0f, -25)), 0x0400);
  // An fp32 subnormal (not a datapath value) still gives a zero of its sign.
  EXPECT_EQ(f16_from_f32(f32_from_bits(0x80000001u)), 0x8000);
  // Ties to even in the normal range: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(f16_from_f32(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(f16_from_f32(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x3F808000u)), 0x3F80);
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x3F818000u)), 0x3F82);
}

TEST(LowPrecision, RandomDatapathValuesRoundLikeTheReference) {
  std::mt19937 rng(20261129);
  for (int i = 0; i < 1 << 22; ++i) {
    const float v = load(f32_from_bits(static_cast<uint32_t>(rng())));
    if (std::isnan(v)) continue;
    if (std::isinf(v)) {
      EXPECT_EQ(f16_to_f32(f16_from_f32(v)), v);
      continue;
    }
    expect_rounds_like_reference(kBf16, v);
    expect_rounds_like_reference(kF16, v);
#ifdef __FLT16_MAX__
    // The compiler's own binary16 conversion, a second independent reference.
    const auto host = static_cast<_Float16>(v);
    ASSERT_EQ(f16_to_f32(f16_from_f32(v)), static_cast<float>(host)) << std::hexfloat << v;
#endif
  }
}

TEST(LowPrecision, RoundToIsTheIdentityForF32) {
  EXPECT_EQ(f32_bits(round_to(isa::DType::F32, 1.0000001f)), f32_bits(1.0000001f));
  EXPECT_EQ(round_to(isa::DType::BF16, 1.0000001f), 1.0f);
  EXPECT_EQ(round_to(isa::DType::F16, 70000.0f), INFINITY);
}

// A PE multiply of two widened bf16 values rounds nothing: their 8-bit significands give at
// most a 16-bit product. Every pair of significands, at exponents that keep the product inside
// fp32's normal range (outside it fp32 saturates or flushes, as for any fp32 product).
TEST(LowPrecision, Bf16ProductsAreExactInFp32) {
  for (const int ea : {-60, 0, 63})
    for (const int eb : {-66, -1, 63})
      for (uint32_t fa = 0; fa < 128; ++fa)
        for (uint32_t fb = 0; fb < 128; ++fb) {
          const auto a = static_cast<uint16_t>((static_cast<uint32_t>(ea + 127) << 7) | fa);
          const auto b =
              static_cast<uint16_t>(0x8000u | (static_cast<uint32_t>(eb + 127) << 7) | fb);
          const float x = bf16_to_f32(a), y = bf16_to_f32(b);
          ASSERT_EQ(static_cast<double>(mul(x, y)), static_cast<double>(x) * static_cast<double>(y))
              << std::hex << a << " * " << b;
        }
}

// fp16: 11-bit significands give at most 22 bits, and every exponent (subnormals included,
// 2^-24 * 2^-24 = 2^-48; 65504^2 < 2^32) stays inside fp32's normal range: every product of
// two finite fp16 values is exact. Every pair of significands at the extreme exponents.
TEST(LowPrecision, F16ProductsAreExactInFp32) {
  for (const uint32_t ea : {0u, 1u, 15u, 30u})
    for (const uint32_t eb : {0u, 1u, 15u, 30u})
      for (uint32_t fa = 0; fa < 1024; ++fa)
        for (uint32_t fb = 0; fb < 1024; ++fb) {
          const auto a = static_cast<uint16_t>((ea << 10) | fa);
          const auto b = static_cast<uint16_t>(0x8000u | (eb << 10) | fb);
          const float x = f16_to_f32(a), y = f16_to_f32(b);
          ASSERT_EQ(static_cast<double>(mul(x, y)), static_cast<double>(x) * static_cast<double>(y))
              << std::hex << a << " * " << b;
        }
}

}  // namespace
}  // namespace s2::numerics
