#pragma once
// The PE arithmetic in C++ (DESIGN.md section 6), bit-identical to rtl_models/pe/pe_mac.sv.
// Values are binary32 bit patterns so that NaN payloads and signed zeros are explicit.
//
// Each operation is the host's correctly rounded IEEE operation (round to nearest-even, the
// default rounding mode) wrapped in:
//  * DAZ: a subnormal input is replaced by zero of the same sign before the operation;
//  * FTZ: a result whose exponent field is 0 after the host rounded it (to the subnormal
//    format's precision) is replaced by zero of the same sign. A result that rounds UP to the
//    smallest normal 0x00800000 is therefore kept; e.g. 0x3F7FFFFF * 0x00800000 (exactly
//    2^-126 - 2^-150, a tie) is 0x00800000, while 0x3F7FFFFE * 0x00800000 is +0;
//  * every NaN result becomes the canonical quiet NaN kCanonicalNaN (payload and sign dropped).
// The result depends on the host's current rounding mode; callers keep the default
// (round-to-nearest). The regression deliberately switches it to prove it can fail.
#include <cstdint>

namespace s2::rtl {

inline constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

// a * b.
uint32_t fp32_mul_ftz(uint32_t a, uint32_t b);
// a + b.
uint32_t fp32_add_ftz(uint32_t a, uint32_t b);
// One PE step: acc + (a * b), two roundings (no fused multiply-add).
uint32_t pe_mac(uint32_t a, uint32_t b, uint32_t acc);

}  // namespace s2::rtl
