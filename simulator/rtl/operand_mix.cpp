#include "simulator/rtl/operand_mix.h"

namespace s2::sim::rtl {
namespace {

uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr uint32_t kSign = 0x80000000u;

}  // namespace

const char* profile_name(OperandProfile p) {
  switch (p) {
    case OperandProfile::Ordinary:
      return "ordinary";
    case OperandProfile::Extremes:
      return "extremes";
    case OperandProfile::Zeros:
      return "zeros";
    case OperandProfile::Specials:
      return "specials";
  }
  return "?";
}

uint64_t tile_seed(uint64_t seed, uint64_t index) {
  uint64_t x = seed * 0x100000001B3ull + index;
  return splitmix(x);
}

uint64_t OperandMix::next_u64() {
  return splitmix(state_);
}

uint64_t OperandMix::below(uint64_t bound) {
  return next_u64() % bound;
}

// A value of magnitude 2^-8 .. 2^8 with a random sign and mantissa: sums of these cancel and
// round in every way.
uint32_t OperandMix::ordinary() {
  const uint64_t r = next_u64();
  const auto exponent = static_cast<uint32_t>(127 - 8 + (r >> 40) % 17);
  return (r & 1 ? kSign : 0) | (exponent << 23) | static_cast<uint32_t>((r >> 8) & 0x7FFFFF);
}

uint32_t OperandMix::next() {
  const uint64_t pick = below(100);
  const uint64_t r = next_u64();
  const uint32_t sign = r & 1 ? kSign : 0;
  const auto mantissa = static_cast<uint32_t>((r >> 8) & 0x7FFFFF);
  switch (profile_) {
    case OperandProfile::Ordinary:
      return ordinary();
    case OperandProfile::Extremes:
      if (pick < 25) return sign | ((254u - static_cast<uint32_t>(r >> 40) % 4) << 23) | mantissa;
      if (pick < 50) return sign | ((1u + static_cast<uint32_t>(r >> 40) % 4) << 23) | mantissa;
      if (pick < 65) return sign | (mantissa | 1u);  // subnormal
      return ordinary();
    case OperandProfile::Zeros:
      if (pick < 50) return sign;  // +0 or -0
      return ordinary();
    case OperandProfile::Specials:
      if (pick < 5) return sign | 0x7F800000u;                    // Inf
      if (pick < 8) return sign | 0x7F800000u | (mantissa | 1u);  // NaN, any payload
      if (pick < 20) return sign;
      if (pick < 30) return sign | (mantissa | 1u);
      if (pick < 40) return static_cast<uint32_t>(r >> 16);  // any bit pattern
      return ordinary();
  }
  return ordinary();
}

}  // namespace s2::sim::rtl
