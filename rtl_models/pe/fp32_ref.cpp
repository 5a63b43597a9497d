#include "rtl_models/pe/fp32_ref.h"

#include "isa/common/float_bits.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"

// The arithmetic is s2::numerics' (the one definition the interpreter and the functional model
// use); this file only instantiates it with -frounding-math (rtl_models/CMakeLists.txt), so the
// host's rounding mode is a real input and the regression can switch it to prove it fails.

namespace s2::rtl {

uint32_t fp32_mul_ftz(uint32_t a, uint32_t b) {
  return numerics::mul_bits(a, b);
}

uint32_t fp32_add_ftz(uint32_t a, uint32_t b) {
  return numerics::add_bits(a, b);
}

uint32_t pe_mac(uint32_t a, uint32_t b, uint32_t acc) {
  return numerics::mac_bits(acc, a, b);
}

uint32_t pe_operand(uint32_t x, isa::DType mode) {
  const auto half = static_cast<uint16_t>(x & 0xFFFFu);
  if (mode == isa::DType::F32) return x;
  return f32_bits(numerics::f32_from_bits16(mode, half));
}

uint32_t pe_product(uint32_t a, uint32_t b, isa::DType mode) {
  return fp32_mul_ftz(pe_operand(a, mode), pe_operand(b, mode));
}

}  // namespace s2::rtl
