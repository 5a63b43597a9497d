#include "isa/common/float_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "isa/common/float_bits.h"
#include "isa/common/hex.h"

namespace s2 {
namespace {

constexpr uint32_t kCanonicalNan = 0x7fc00000u;

}  // namespace

std::string format_f32(float value) {
  if (std::isnan(value)) {
    const uint32_t b = f32_bits(value);
    return b == kCanonicalNan ? "nan" : "nan:" + hex(b);
  }
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::optional<float> parse_f32(std::string_view text) {
  if (text == "nan") return f32_from_bits(kCanonicalNan);
  if (text == "inf") return f32_from_bits(0x7f800000u);
  if (text == "-inf") return f32_from_bits(0xff800000u);
  if (text.substr(0, 6) == "nan:0x") {
    uint32_t b = 0;
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data() + 6, end, b, 16);
    if (r.ec != std::errc() || r.ptr != end || !std::isnan(f32_from_bits(b))) return std::nullopt;
    return f32_from_bits(b);
  }
  float v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

}  // namespace s2
