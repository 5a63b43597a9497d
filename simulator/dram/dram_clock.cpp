#include "simulator/dram/dram_clock.h"

#include <cmath>

#include "isa/common/errors.h"

namespace s2::sim::dram {

namespace {
constexpr uint64_t kPsPerMs = 1'000'000'000;  // cycles = ps * kHz / kPsPerMs
}  // namespace

DramClock::DramClock(double clock_mhz)
    : khz_(static_cast<uint64_t>(std::llround(clock_mhz * 1000.0))) {
  S2_CHECK(khz_ > 0, "DramClock: clock must be positive");
}

// ps = ceil(cycle * 1e9 / khz), split as cycle = a * khz + b so no product overflows 64 bits.
uint64_t DramClock::to_ps(int64_t cycle) const {
  const auto c = static_cast<uint64_t>(cycle < 0 ? 0 : cycle);
  const uint64_t a = c / khz_;
  const uint64_t b = c % khz_;
  return a * kPsPerMs + (b * kPsPerMs + khz_ - 1) / khz_;
}

// c0 = floor(ps * khz / 1e9) is the last edge at or before ps (see dram_clock.h); the answer is
// c0 when ps falls on it, else c0 + 1. Split as ps = q * 1e9 + r for the same overflow reason.
int64_t DramClock::to_cycle(uint64_t ps) const {
  const uint64_t q = ps / kPsPerMs;
  const uint64_t r = ps % kPsPerMs;
  const uint64_t c0 = q * khz_ + r * khz_ / kPsPerMs;
  const uint64_t c = to_ps(static_cast<int64_t>(c0)) >= ps ? c0 : c0 + 1;
  return static_cast<int64_t>(c);
}

double DramClock::period_ps() const {
  return static_cast<double>(kPsPerMs) / static_cast<double>(khz_);
}

}  // namespace s2::sim::dram
