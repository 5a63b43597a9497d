#pragma once
// The text forms of a configuration's values, shared by the typed parameter reader
// (param_reader.h) and nothing else: numbers as the YAML 1.2 core schema writes them, byte sizes
// with binary units, and how a misspelt key or name is recognised. Internal to isa/target/.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2::target::text {

// Whether `written` is plausibly a misspelling of `meant` (case-insensitive): a few edits apart
// (never all of a short word), up to two letters added or left out ("colums" for "cols"), or a
// truncation such as `clock` for `clock_mhz`.
bool resembles(const std::string& written, const std::string& meant);
// The candidate `word` most plausibly meant (the fewest edits among those it resembles), if any.
std::optional<std::string> closest(const std::string& word,
                                   const std::vector<std::string>& candidates);

// "1.5", "1e+20": a double with up to 10 significant digits.
std::string format_double(double value);

enum class Parse { ok, malformed, out_of_range };
// Numbers follow the YAML 1.2 core schema: decimal with an optional sign, or 0x / 0o prefixed.
Parse parse_unsigned(std::string_view text, uint64_t& value);
Parse parse_signed(std::string_view text, int64_t& value);
// A finite number; false for anything else.
bool parse_double(std::string_view text, double& value);
// "<whole number>[ ]<unit>" (B, KiB, MiB, GiB, TiB) into bytes; `problem` explains a failure.
std::optional<uint64_t> parse_byte_size(const std::string& text, std::string& problem);

}  // namespace s2::target::text
