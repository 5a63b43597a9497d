#pragma once
// Exact text for binary32 values: the shortest decimal that reads back to the same bits, so
// assembly text round-trips through the binary bit for bit.

#include <optional>
#include <string>
#include <string_view>

namespace s2 {

// "1", "0.1", "-0", "inf", "-inf", "nan" (canonical quiet NaN) or "nan:0x7fc00001" for a NaN
// with another payload.
std::string format_f32(float value);

// Parses what format_f32 prints, plus any decimal or scientific literal; nullopt if the text
// is not a number.
std::optional<float> parse_f32(std::string_view text);

}  // namespace s2
