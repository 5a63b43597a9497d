#pragma once
// Reading helpers shared by the readers of a target's sections (target_loader.cpp and the DRAM
// backends' section parsers): fields that a preset may already have given, powers of two and
// positive reals.

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "isa/target/param_reader.h"

namespace s2::target {

inline bool is_power_of_two(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// A field that is required where it is first defined, and an override with the earlier value
// as fallback where a preset already gave it (`base` non-null).
template <typename T>
T field(ParamReader& reader, const std::string& key, const T* base, T min, T max) {
  return base != nullptr ? reader.get<T>(key, *base, min, max) : reader.required<T>(key, min, max);
}

// A power of two; when collecting, a value that is not one is recorded and read on as 1.
inline uint32_t power_of_two_field(ParamReader& reader, const std::string& key,
                                   const uint32_t* base, uint32_t min, uint32_t max) {
  const uint32_t value = field<uint32_t>(reader, key, base, min, max);
  if (is_power_of_two(value)) return value;
  reader.problem(key, fmt::format("must be a power of two, got {}", value));
  return 1;
}

// Positive reals: the range check is inclusive, so zero is refused here (and read on as 1 when
// collecting).
inline double positive_field(ParamReader& reader, const std::string& key, const double* base,
                             double max) {
  const double value = field<double>(reader, key, base, 0.0, max);
  if (value > 0) return value;
  reader.problem(key, fmt::format("must be greater than 0, got {:.6g}", value));
  return 1.0;
}

}  // namespace s2::target
