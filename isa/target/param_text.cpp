#include "isa/target/param_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "isa/target/param_reader.h"

namespace s2::target {
namespace text {

// ---- misspellings ------------------------------------------------------------------------

namespace {

std::string lower(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Optimal string alignment distance between two lowercased words: how far a misspelling is
// from a key. Three rows of the table, not all of it: a report of many unknown keys computes
// it for each key against each known one.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> before(b.size() + 1), above(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    above[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({above[j] + 1, row[j - 1] + 1, above[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, above);
    std::swap(above, row);
  }
  return above[b.size()];
}

// Whether every character of `part` appears in `whole`, in order.
bool is_subsequence(const std::string& part, const std::string& whole) {
  std::size_t at = 0;
  for (char c : whole)
    if (at < part.size() && part[at] == c) ++at;
  return at == part.size();
}

// resembles() of lowercased words `a` (written) and `b` (meant) at edit distance `distance`.
bool resembles_lower(const std::string& a, const std::string& b, std::size_t distance) {
  const std::size_t shorter = std::min(a.size(), b.size());
  if (distance < shorter && distance <= std::max<std::size_t>(1, shorter / 3)) return true;
  // Up to two letters added or left out ("colums" for "cols", "rws" for "rows").
  const std::string& small = a.size() < b.size() ? a : b;
  const std::string& large = a.size() < b.size() ? b : a;
  if (small.size() >= 3 && large.size() - small.size() <= 2 && is_subsequence(small, large))
    return true;
  constexpr std::size_t kMinPrefix = 4;
  return shorter >= kMinPrefix && (a.rfind(b, 0) == 0 || b.rfind(a, 0) == 0);
}

}  // namespace

bool resembles(const std::string& written, const std::string& meant) {
  const std::string a = lower(written);
  const std::string b = lower(meant);
  return resembles_lower(a, b, edit_distance(a, b));
}

std::optional<std::string> closest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  const std::string a = lower(word);
  for (const std::string& candidate : candidates) {
    const std::string b = lower(candidate);
    const std::size_t distance = edit_distance(a, b);
    if (distance < best_distance && resembles_lower(a, b, distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string format_double(double value) {
  return fmt::format("{:.10g}", value);
}

// ---- scalar conversions ------------------------------------------------------------------

namespace {

// Digits of a non-negative number, decimal or 0x / 0o prefixed; no sign.
Parse parse_magnitude(std::string_view text, uint64_t& value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    base = text[1] == 'x' ? 16 : 8;
    text.remove_prefix(2);
  }
  if (text.empty()) return Parse::malformed;
  const char* end = text.data() + text.size();
  const std::from_chars_result result = std::from_chars(text.data(), end, value, base);
  if (result.ptr != end) return Parse::malformed;
  return result.ec == std::errc::result_out_of_range ? Parse::out_of_range : Parse::ok;
}

}  // namespace

Parse parse_unsigned(std::string_view text, uint64_t& value) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  return parse_magnitude(text, value);
}

Parse parse_signed(std::string_view text, int64_t& value) {
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  uint64_t magnitude = 0;
  const Parse parsed = parse_magnitude(text, magnitude);
  if (parsed != Parse::ok) return parsed;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (magnitude > limit) return Parse::out_of_range;
  // Two's complement negation through unsigned arithmetic, so -2^63 needs no special case.
  value = static_cast<int64_t>(negative ? ~magnitude + 1 : magnitude);
  return Parse::ok;
}

bool parse_double(std::string_view text, double& value) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const std::from_chars_result result = std::from_chars(text.data(), end, value);
  return result.ec == std::errc() && result.ptr == end && std::isfinite(value);
}

struct Unit {
  std::string_view name;
  unsigned shift;
};
constexpr std::array<Unit, 5> kByteUnits{
    {{"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}}};

std::optional<uint64_t> parse_byte_size(const std::string& text, std::string& problem) {
  const std::string expected =
      "expected a byte size such as 1024, 64KiB or 2 MiB, got \"" + text + "\"";
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  std::size_t unit_start = digits;
  while (unit_start < text.size() && text[unit_start] == ' ')
    ++unit_start;
  const std::string_view unit_text = std::string_view(text).substr(unit_start);
  if (digits == 0) {
    problem = expected;
    return std::nullopt;
  }
  if (digits < text.size() && (text[digits] == '.' || text[digits] == ',')) {
    problem = expected + " (the count must be a whole number; use a smaller unit)";
    return std::nullopt;
  }
  uint64_t count = 0;
  const char* digits_end = text.data() + digits;
  if (std::from_chars(text.data(), digits_end, count).ec != std::errc()) {
    problem = "byte size \"" + text + "\" is too large";
    return std::nullopt;
  }
  if (unit_text.empty()) return count;
  for (const Unit& unit : kByteUnits) {
    if (unit_text != unit.name) continue;
    if (count > (std::numeric_limits<uint64_t>::max() >> unit.shift)) {
      problem = "byte size \"" + text + "\" is too large";
      return std::nullopt;
    }
    return count << unit.shift;
  }
  const std::string unit_lower = lower(std::string(unit_text));
  for (std::string_view decimal : {"k", "kb", "m", "mb", "g", "gb", "t", "tb"}) {
    if (unit_lower == decimal) {
      problem = expected + " (\"" + std::string(unit_text) +
                "\" is ambiguous; write binary units: B, KiB, MiB, GiB, TiB)";
      return std::nullopt;
    }
  }
  problem = expected + " (units are B, KiB, MiB, GiB, TiB)";
  return std::nullopt;
}

}  // namespace text

// ---- the reader's public text helpers (param_reader.h) -------------------------------------

std::string format_bytes(uint64_t bytes) {
  using text::kByteUnits;
  for (std::size_t i = kByteUnits.size(); i-- > 1;) {
    const uint64_t unit = uint64_t{1} << kByteUnits[i].shift;
    if (bytes >= unit && bytes % unit == 0) {
      return std::to_string(bytes / unit) + " " + std::string(kByteUnits[i].name);
    }
  }
  return std::to_string(bytes) + " B";
}

std::optional<uint64_t> parse_byte_size_text(const std::string& text, std::string& problem) {
  return text::parse_byte_size(text, problem);
}

std::optional<double> parse_number_text(std::string_view text) {
  double value = 0;
  if (!text::parse_double(text, value)) return std::nullopt;
  return value;
}

std::optional<std::string> closest_name(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  return text::closest(word, candidates);
}

}  // namespace s2::target
