#include "isa/numerics/low_precision.h"

#include "isa/common/errors.h"
#include "isa/numerics/fp32.h"

namespace s2::numerics {

uint16_t bf16_from_f32(float v) {
  const uint32_t x = f32_bits(v);
  if (is_nan_bits(x)) return kBf16CanonicalNaN;
  // Round to nearest, ties to even, on the 16 bits dropped: add 0x7FFF plus the kept LSB.
  // A carry out of the fraction steps the exponent, up to infinity (0x7F80) at the top.
  const uint32_t rounded = x + 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

float bf16_to_f32(uint16_t bits) {
  const uint32_t x = uint32_t{bits} << 16;
  if (is_nan_bits(x)) return f32_from_bits(kCanonicalNaN);
  return load(f32_from_bits(x));
}

uint16_t f16_from_f32(float v) {
  const uint32_t x = f32_bits(v);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if (is_nan_bits(x)) return kF16CanonicalNaN;
  const uint32_t magnitude = x & ~kSignMask;
  // 65520 = 0x477FF000, halfway between fp16's largest finite 65504 and 2^16: it and above
  // round to infinity (the tie goes to the even neighbour, 2^16).
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent >= -14) {
    // Normal: rebias the exponent and round the 13 fraction bits dropped (a carry may reach
    // the next binade, which the addition handles).
    const uint32_t rebiased = magnitude - (uint32_t{127 - 15} << 23);
    const uint32_t rounded = rebiased + 0x0FFFu + ((rebiased >> 13) & 1u);
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }
  // Subnormal or zero. In units of 2^-24 (fp16's smallest subnormal) the value is the 24-bit
  // significand shifted right by -exponent - 1 bits; from 25 bits on it is below 2^-25, half
  // the smallest subnormal, and rounds to zero.
  if (magnitude == 0) return sign;
  const uint32_t significand = (magnitude & kFracMask) | 0x00800000u;
  const int shift = -exponent - 1;
  if (shift > 24) return sign;
  const uint32_t kept = significand >> shift;
  const uint32_t rest = significand & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  const bool up = rest > half || (rest == half && (kept & 1u) != 0);
  // Rounding up from the largest subnormal gives 0x0400, the smallest normal: still right.
  return static_cast<uint16_t>(sign | (kept + (up ? 1u : 0u)));
}

float f16_to_f32(uint16_t bits) {
  const uint32_t sign = uint32_t{bits & 0x8000u} << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t fraction = bits & 0x3FFu;
  if (exponent == 0x1F)
    return fraction != 0 ? f32_from_bits(kCanonicalNaN) : f32_from_bits(sign | kExpMask);
  if (exponent != 0) return f32_from_bits(sign | ((exponent + 127 - 15) << 23) | (fraction << 13));
  if (fraction == 0) return f32_from_bits(sign);
  // Subnormal fraction * 2^-24: normalise so that the leading one becomes the implicit bit.
  int e = -14;
  uint32_t f = fraction;
  while ((f & 0x400u) == 0) {
    f <<= 1;
    --e;
  }
  return f32_from_bits(sign | (static_cast<uint32_t>(e + 127) << 23) | ((f & 0x3FFu) << 13));
}

bool is_nan16(isa::DType dtype, uint16_t bits) {
  const uint16_t exponent = dtype == isa::DType::BF16 ? 0x7F80 : 0x7C00;
  return (bits & exponent) == exponent && (bits & ~exponent & 0x7FFF) != 0;
}

namespace {

[[noreturn]] void not_a_float_type(const char* function, isa::DType dtype, const char* expected) {
  throw InternalError(std::string(function) + ": " + std::string(isa::dtype_name(dtype)) +
                      " is not " + expected);
}

}  // namespace

uint16_t bits16_from_f32(isa::DType dtype, float v) {
  if (dtype == isa::DType::BF16) return bf16_from_f32(v);
  if (dtype == isa::DType::F16) return f16_from_f32(v);
  not_a_float_type("bits16_from_f32", dtype, "a 16-bit float type");
}

float f32_from_bits16(isa::DType dtype, uint16_t bits) {
  if (dtype == isa::DType::BF16) return bf16_to_f32(bits);
  if (dtype == isa::DType::F16) return f16_to_f32(bits);
  not_a_float_type("f32_from_bits16", dtype, "a 16-bit float type");
}

float round_to(isa::DType dtype, float v) {
  if (dtype == isa::DType::F32) return v;
  if (dtype == isa::DType::BF16 || dtype == isa::DType::F16)
    return f32_from_bits16(dtype, bits16_from_f32(dtype, v));
  not_a_float_type("round_to", dtype, "a floating-point type");
}

}  // namespace s2::numerics
