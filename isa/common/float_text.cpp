#include "isa/common/float_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "isa/common/hex.h"

namespace s2 {
namespace {

constexpr uint32_t kCanonicalNan = 0x7fc00000u;

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

float from_bits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace

std::string format_f32(float value) {
  if (std::isnan(value)) {
    const uint32_t b = bits_of(value);
    return b == kCanonicalNan ? "nan" : "nan:" + hex(b);
  }
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::optional<float> parse_f32(std::string_view text) {
  if (text == "nan") return from_bits(kCanonicalNan);
  if (text == "inf") return from_bits(0x7f800000u);
  if (text == "-inf") return from_bits(0xff800000u);
  if (text.substr(0, 6) == "nan:0x") {
    uint32_t b = 0;
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data() + 6, end, b, 16);
    if (r.ec != std::errc() || r.ptr != end || !std::isnan(from_bits(b))) return std::nullopt;
    return from_bits(b);
  }
  float v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

}  // namespace s2
