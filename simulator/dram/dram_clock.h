#pragma once
// DramClock: converts between picoseconds (the simulator's time) and DRAM clock cycles.
//
// Clock edges sit at ps(c) = ceil(c * tCK) on the integer picosecond grid, with tCK taken
// exactly from the clock in kHz (1600 MHz -> 625 ps; 2133 MHz -> 468.82... ps). The two
// conversions are exact inverses on edges: to_cycle(to_ps(c)) == c for every c, so a latency
// measured in ps converts back to the cycle count the model scheduled. Integer arithmetic only
// (no double rounding), valid for simulated times up to ~10^5 s.

#include <cstdint>

namespace s2::sim::dram {

class DramClock {
 public:
  // clock_mhz > 0, as range-checked by the target loader.
  explicit DramClock(double clock_mhz);

  // The first clock edge at or after `ps`.
  int64_t to_cycle(uint64_t ps) const;
  // The time of edge `cycle` (>= 0).
  uint64_t to_ps(int64_t cycle) const;
  // tCK in ps, for reports.
  double period_ps() const;

 private:
  uint64_t khz_;
};

}  // namespace s2::sim::dram
