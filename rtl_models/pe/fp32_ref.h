#pragma once
// The PE arithmetic in C++ (DESIGN.md section 6), bit-identical to rtl_models/pe/pe_mac.sv:
// s2::numerics (isa/numerics/fp32.h) on bit patterns, so that NaN payloads and signed zeros
// are explicit: round to nearest-even, DAZ, FTZ after rounding (a result that rounds up to
// 0x00800000 is kept), every NaN result the canonical 0x7FC00000.
// The result depends on the host's current rounding mode (fp32_ref.cpp is built with
// -frounding-math); callers keep the default. The regression switches it to prove it can fail.
#include <cstdint>

#include "isa/encoding/isa_table.h"

namespace s2::rtl {

inline constexpr uint32_t kCanonicalNaN = 0x7FC00000u;  // numerics::kCanonicalNaN

// a * b.
uint32_t fp32_mul_ftz(uint32_t a, uint32_t b);
// a + b.
uint32_t fp32_add_ftz(uint32_t a, uint32_t b);
// One PE step: acc + (a * b), two roundings (no fused multiply-add).
uint32_t pe_mac(uint32_t a, uint32_t b, uint32_t acc);
// A PE multiplicand of type `mode` as the multiplier reads it: an f32 pattern unchanged, a bf16
// or f16 pattern (bits 15:0; the upper bits are ignored) widened by isa/numerics/low_precision.h.
uint32_t pe_operand(uint32_t x, isa::DType mode);
// The PE product in multiply mode `mode`: fp32_mul_ftz of the widened operands.
uint32_t pe_product(uint32_t a, uint32_t b, isa::DType mode);

}  // namespace s2::rtl
