#include "rtl_models/pe/fp32_ref.h"

#include "isa/numerics/fp32.h"

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

}  // namespace s2::rtl
