#pragma once
// Deterministic operand streams for the co-design regression: fp32 bit patterns drawn from a
// profile — ordinary values, magnitude extremes (near FLT_MAX and FLT_MIN, subnormals), exact
// zeros of both signs, or everything including Inf and NaN — from a seed, so any tile can be
// regenerated from (seed, tile index).
#include <cstdint>

namespace s2::sim::rtl {

enum class OperandProfile { Ordinary, Extremes, Zeros, Specials };
inline constexpr int kOperandProfiles = 4;
const char* profile_name(OperandProfile p);

class OperandMix {
 public:
  OperandMix(uint64_t seed, OperandProfile profile) : state_(seed), profile_(profile) {}
  uint32_t next();
  uint64_t below(uint64_t bound);  // uniform in [0, bound), bound > 0

 private:
  uint64_t next_u64();
  uint32_t ordinary();
  uint64_t state_;
  OperandProfile profile_;
};

// A seed for tile `index` of a run seeded with `seed` (splitmix64 of both).
uint64_t tile_seed(uint64_t seed, uint64_t index);

}  // namespace s2::sim::rtl
