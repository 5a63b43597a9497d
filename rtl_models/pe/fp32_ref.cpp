#include "rtl_models/pe/fp32_ref.h"

#include <cstring>

// Built with -ffp-contract=off (top level) and -frounding-math (rtl_models/CMakeLists.txt) so
// the compiler neither fuses the multiply and add of pe_mac nor assumes the rounding mode.

namespace s2::rtl {
namespace {

constexpr uint32_t kSignMask = 0x80000000u;
constexpr uint32_t kExpMask = 0x7F800000u;
constexpr uint32_t kFracMask = 0x007FFFFFu;

uint32_t flush_subnormal(uint32_t x) {
  return (x & kExpMask) == 0 ? (x & kSignMask) : x;
}

bool is_nan(uint32_t x) {
  return (x & kExpMask) == kExpMask && (x & kFracMask) != 0;
}

float to_float(uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

uint32_t to_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

uint32_t finish(float r) {
  const uint32_t x = to_bits(r);
  return is_nan(x) ? kCanonicalNaN : flush_subnormal(x);
}

}  // namespace

uint32_t fp32_mul_ftz(uint32_t a, uint32_t b) {
  return finish(to_float(flush_subnormal(a)) * to_float(flush_subnormal(b)));
}

uint32_t fp32_add_ftz(uint32_t a, uint32_t b) {
  return finish(to_float(flush_subnormal(a)) + to_float(flush_subnormal(b)));
}

uint32_t pe_mac(uint32_t a, uint32_t b, uint32_t acc) {
  return fp32_add_ftz(acc, fp32_mul_ftz(a, b));
}

}  // namespace s2::rtl
