#pragma once
// The numbers the benchmarks (tests/bench) take on their command lines. A count is a whole
// decimal number inside the benchmark's range; anything else (a flag it does not know, a sign,
// trailing letters, a number too large) is refused with the argument, the range and the usage
// line, and exit 1, instead of becoming 0 through atoi and a table of NaNs.

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace s2::bench {

// `text` as a decimal number in [min, max] into `out`; false (and `out` untouched) otherwise.
inline bool parse_count(const char* text, uint64_t min, uint64_t max, uint64_t& out) {
  if (text == nullptr || *text < '0' || *text > '9') return false;  // no sign, no blank
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || errno == ERANGE || value < min || value > max) return false;
  out = value;
  return true;
}

// Prints "NAME: 'TEXT' is not a whole number from MIN to MAX" and the usage line, and exits 1.
[[noreturn]] inline void refuse_count(const char* name, const char* text, uint64_t min,
                                      uint64_t max, const char* usage) {
  std::fprintf(stderr, "%s: '%s' is not a whole number from %llu to %llu\nusage: %s\n", name, text,
               static_cast<unsigned long long>(min), static_cast<unsigned long long>(max), usage);
  std::exit(1);
}

// The optional count of a benchmark called as `NAME [N]`: `fallback` when there is none; the
// usage on stdout and exit 0 for --help or -h; a message and exit 1 for anything else.
inline uint64_t count_argument(int argc, char** argv, const char* name, const char* usage,
                               uint64_t fallback, uint64_t min, uint64_t max) {
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("usage: %s\n", usage);
    std::exit(0);
  }
  if (argc > 2) {
    std::fprintf(stderr, "%s: one argument at most, got %d\nusage: %s\n", name, argc - 1, usage);
    std::exit(1);
  }
  uint64_t n = fallback;
  if (argc == 2 && !parse_count(argv[1], min, max, n)) refuse_count(name, argv[1], min, max, usage);
  return n;
}

}  // namespace s2::bench
