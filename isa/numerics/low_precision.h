#pragma once
// The 16-bit floating-point formats of the datapath (DESIGN.md §6): bf16 (1 sign, 8 exponent,
// 7 fraction bits: fp32's range) and fp16 (IEEE binary16: 1, 5, 10, bias 15). They exist only
// in memory: a value is widened to fp32 where it enters the datapath (a load into the PE array
// or the PPU) and rounded where it leaves it (the PE epilogue's write-back, a PPU result, a
// cast). All arithmetic is fp32 (fp32.h).
//
// Widening (to_f32) is exact, with one rule per format:
//  * bf16: the bits become the top half of an fp32; a bf16 subnormal (exponent field 0) is an
//    fp32 subnormal and reads as zero of its sign, as every fp32 value does (DAZ, fp32.h).
//  * fp16: subnormals are kept. Every fp16 value, subnormals included, is an fp32 normal, so
//    it enters the datapath unchanged. Loss scaling relies on this: a gradient scaled into
//    fp16's subnormal range keeps its bits until it is unscaled in fp32.
//  * A NaN widens to the canonical fp32 NaN (fp32.h kCanonicalNaN); infinities stay infinite.
//
// Rounding (from_f32) rounds an f32 value to nearest, ties to even, once (the datapath gives
// it flushed values; bf16_from_f32 also rounds an f32 subnormal to the bf16 subnormal or
// normal nearest it, which the assembler uses for literals):
//  * overflow gives infinity of the value's sign (bf16: above 0x7F7F's halfway point, fp16:
//    |v| >= 65520);
//  * fp16 rounds gradually into its subnormals (the smallest, 2^-24, and below half of it
//    to zero; exactly half ties to even, i.e. to zero);
//  * bf16 has no subnormal results: every nonzero fp32 datapath value is >= 2^-126, which
//    rounds to a bf16 normal;
//  * a NaN becomes the format's canonical quiet NaN, sign dropped (bf16 0x7FC0, fp16 0x7E00).
//
// Products: the product of two widened bf16 values (8-bit significands) or two fp16 values
// (11-bit significands, exponents within 2^-48..2^32) is exact in fp32, so a PE multiply of
// low-precision operands rounds nothing; only the fp32 additions round.
#include <cstdint>

#include "isa/common/float_bits.h"
#include "isa/encoding/isa_table.h"

namespace s2::numerics {

inline constexpr uint16_t kBf16CanonicalNaN = 0x7FC0u;
inline constexpr uint16_t kF16CanonicalNaN = 0x7E00u;

uint16_t bf16_from_f32(float v);
float bf16_to_f32(uint16_t bits);
uint16_t f16_from_f32(float v);
float f16_to_f32(uint16_t bits);

// The same by element type: `dtype` must be bf16 or f16 (an internal error otherwise).
uint16_t bits16_from_f32(isa::DType dtype, float v);
float f32_from_bits16(isa::DType dtype, uint16_t bits);

// Whether `bits` is a NaN of the 16-bit float type `dtype` (bf16 or f16), any sign or payload.
bool is_nan16(isa::DType dtype, uint16_t bits);

// A datapath value as a tensor of `dtype` holds it: rounded to the format and widened back.
// Identity for f32 (the value is already a datapath value). dtype must be a float type.
float round_to(isa::DType dtype, float v);

// True for the element types the datapath computes with (f32, bf16, f16).
constexpr bool is_float_dtype(isa::DType dtype) {
  return dtype == isa::DType::F32 || dtype == isa::DType::BF16 || dtype == isa::DType::F16;
}

}  // namespace s2::numerics
