#pragma once
// The S2Train datapath arithmetic (DESIGN.md §6), the one definition the compiler's reference
// interpreter, the simulator's functional model and the RTL regression all use.
//
// Every operation is the host's correctly rounded IEEE binary32 operation (round to
// nearest-even, the default rounding mode; build with -ffp-contract=off, never fast-math)
// wrapped in:
//  * DAZ: a subnormal input is replaced by zero of the same sign before the operation;
//  * FTZ: a result whose exponent field is 0 after the host rounded it (to the subnormal
//    format's precision) is replaced by zero of the same sign. A result that rounds UP to the
//    smallest normal 0x00800000 is therefore kept: 0x3F7FFFFF * 0x00800000 (exactly
//    2^-126 - 2^-150, a tie) is 0x00800000, while 0x3F7FFFFE * 0x00800000 is +0.
//  * NaN: the hardware produces only the canonical quiet NaN kCanonicalNaN (sign and payload
//    dropped). The float functions below leave NaN payloads to the host: a NaN stays a NaN
//    through every operation, so canonicalising where a value leaves the datapath (store())
//    gives the same bits as canonicalising after every operation. The *_bits functions
//    canonicalise every result, as the RTL does.
//
// A PE step is mul then add (two roundings, no fused multiply-add): acc + a * b.
#include <cstdint>
#include <cstring>

#include "isa/common/float_bits.h"

namespace s2::numerics {

inline constexpr uint32_t kCanonicalNaN = 0x7FC00000u;
inline constexpr uint32_t kSignMask = 0x80000000u;
inline constexpr uint32_t kExpMask = 0x7F800000u;
inline constexpr uint32_t kFracMask = 0x007FFFFFu;

inline bool is_nan_bits(uint32_t x) {
  return (x & kExpMask) == kExpMask && (x & kFracMask) != 0;
}

// Flush a subnormal to zero of the same sign; everything else unchanged. Written on the bit
// pattern so that loops over it vectorise (and, compare, select).
inline float ftz(float f) {
  const uint32_t x = f32_bits(f);
  return (x & kExpMask) == 0 ? f32_from_bits(x & kSignMask) : f;
}

// The datapath operations on values already flushed (every value the datapath holds is).
inline float mul(float a, float b) {
  return ftz(a * b);
}
inline float add(float a, float b) {
  return ftz(a + b);
}
inline float sub(float a, float b) {
  return ftz(a - b);
}
inline float div(float a, float b) {
  return ftz(a / b);
}
// One PE step: acc + a * b, each rounded.
inline float mac(float acc, float a, float b) {
  return add(acc, mul(a, b));
}

// A value as it is written out of the datapath: flushed, NaNs canonical.
inline float store(float f) {
  const uint32_t x = f32_bits(f);
  return is_nan_bits(x) ? f32_from_bits(kCanonicalNaN) : ftz(f);
}
// A value as it enters the datapath (DAZ).
inline float load(float f) {
  return ftz(f);
}

// Bit-pattern forms with full DAZ / FTZ / canonical-NaN semantics, for the RTL regression.
inline uint32_t finish_bits(float r) {
  return f32_bits(store(r));
}
inline uint32_t mul_bits(uint32_t a, uint32_t b) {
  return finish_bits(ftz(f32_from_bits(a)) * ftz(f32_from_bits(b)));
}
inline uint32_t add_bits(uint32_t a, uint32_t b) {
  return finish_bits(ftz(f32_from_bits(a)) + ftz(f32_from_bits(b)));
}
inline uint32_t mac_bits(uint32_t acc, uint32_t a, uint32_t b) {
  return add_bits(acc, mul_bits(a, b));
}

}  // namespace s2::numerics
