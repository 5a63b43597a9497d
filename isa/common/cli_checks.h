#pragma once
// Checks of the tools' number and list flags (CLI11 validators), shared by s2c and s2sim. A refusal
// reads "--batch: 0 is not a whole number >= 1". CLI11's own PositiveNumber and
// NonNegativeNumber worded it "Value 0 not in range 0.000000 to 1797693...", with the largest
// double written out in 300 digits, and NonNegativeNumber let NaN through.
// Header only: CLI11 is, and only the tools' mains include this.

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

namespace s2::cli {

// Whether `text` is one or more decimal digits and nothing else (no sign, point or exponent).
inline bool all_digits(const std::string& text) {
  bool digits = !text.empty();
  for (char c : text)
    digits = digits && std::isdigit(static_cast<unsigned char>(c)) != 0;
  return digits;
}

// The whole-number validators below rewrite their text to plain decimal: a leading zero is
// dropped, since CLI11 reads "010" as octal (--batch 010 compiled batch 8, and 09 did not
// convert). Add them with ->transform(), which lets a validator rewrite; ->check() hands it a
// copy.
inline void drop_leading_zeros(std::string& text) {
  const std::size_t first = text.find_first_not_of('0');
  text.erase(0, first == std::string::npos ? text.size() - 1 : first);
}

// Whether `digits` (all_digits(), no leading zero) are a number of at most 2^64 - 1. CLI11
// checks a narrower option type's range ("could not convert"), but reads a larger number into a
// 64-bit option as 2^64 - 1 without a word: "--seed 99999999999999999999" ran with 2^64 - 1.
inline bool fits_64_bits(const std::string& digits) {
  static const std::string kMax = std::to_string(std::numeric_limits<uint64_t>::max());
  return digits.size() < kMax.size() || (digits.size() == kMax.size() && digits <= kMax);
}

// The complaint about digits (without a leading zero) too many for a 64-bit option, or "".
inline std::string too_large(const std::string& text) {
  return fits_64_bits(text)
             ? ""
             : text + " is larger than " + std::to_string(std::numeric_limits<uint64_t>::max()) +
                   ", the largest whole number an option holds";
}

// A whole number of 1 or more, in decimal digits (the option's type bounds it from above:
// CLI11 then says it "could not convert" a larger one; too_large() for a 64-bit type).
inline CLI::Validator positive_whole() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool nonzero = text.find_first_not_of('0') != std::string::npos;
        if (!all_digits(text) || !nonzero) return text + " is not a whole number >= 1";
        drop_leading_zeros(text);
        return too_large(text);
      },
      "INT>=1");
}

// A whole number in [1, max], in decimal digits.
inline CLI::Validator positive_whole_at_most(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        if (all_digits(text)) drop_leading_zeros(text);
        const bool digits = all_digits(text) && text.size() <= 20;
        errno = 0;
        const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
        if (digits && errno == 0 && v >= 1 && v <= max) return "";
        return text + " is not a whole number in [1, " + std::to_string(max) + "]";
      },
      "INT in [1, " + std::to_string(max) + "]");
}

// A whole number of 0 or more, in decimal digits: a seed, an index, a limit. CLI11 read "-1"
// into an unsigned option as 2^64 - 1 ("s2sim regress --count -1" then ran for ever).
inline CLI::Validator whole() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!all_digits(text)) return text + " is not a whole number >= 0";
        drop_leading_zeros(text);
        return too_large(text);
      },
      "INT>=0");
}

// A finite number in [lo, hi] ([lo, hi) when `open_hi`); `what` completes "VALUE is not ...".
inline CLI::Validator finite_in(double lo, double hi, bool open_hi, const std::string& what,
                                const std::string& name) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end != text.c_str() && *end == '\0';
        if (number && std::isfinite(v) && v >= lo && (open_hi ? v < hi : v <= hi)) return "";
        return text + " is not " + what;
      },
      name);
}

// A number that becomes an f32 field or constant: finite, >= 0, at most the largest f32.
inline CLI::Validator f32_non_negative() {
  return finite_in(0.0, static_cast<double>(std::numeric_limits<float>::max()), false,
                   "a finite number >= 0 that an f32 holds (at most 3.4e38)", "FINITE>=0");
}

// A decay rate and the like: finite, in [0, 1).
inline CLI::Validator fraction_below_one() {
  return finite_in(0.0, 1.0, true, "a number in [0, 1)", "FLOAT in [0, 1)");
}

// A finite number >= 0 (a double).
inline CLI::Validator finite_non_negative() {
  return finite_in(0.0, std::numeric_limits<double>::max(), false, "a finite number >= 0",
                   "FINITE>=0");
}

// A comma-separated list of names (s2sim run --dump a,b): none of them empty, so a stray comma
// or an empty argument is refused rather than dumping nothing.
inline CLI::Validator name_list() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool empty_name = text.empty() || text.front() == ',' || text.back() == ',' ||
                          text.find(",,") != std::string::npos;
        return empty_name
                   ? "'" + text + "' has an empty name (names are separated by single commas)"
                   : "";
      },
      "NAME[,NAME...]");
}

// Refuses an option written "--name=" with nothing after the '=' (before app.parse()): CLI11
// reads it as "--name" and takes the next argument as its value, so `s2c opt --passes= FILE`
// read FILE as a pass name. Throws CLI11's ValidationError ("--passes: nothing after '=' ..."),
// which the mains report as any other refused flag. Arguments after "--" are not options.
inline void refuse_empty_values(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return;
    if (arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.find('=') == arg.size() - 1)
      throw CLI::ValidationError(
          arg.substr(0, arg.size() - 1),
          "nothing after '='; write " + arg + "VALUE, or leave the option out");
  }
}

}  // namespace s2::cli
