#include "simulator/report/run_result.h"

namespace s2::sim::report {

double RunResult::dram_bandwidth_bytes_per_s() const {
  const double s = seconds();
  return s <= 0 ? 0 : static_cast<double>(dram.bytes_read + dram.bytes_written) / s;
}

double RunResult::mac_utilization() const {
  if (total_cycles == 0 || pe_count == 0) return 0;
  return static_cast<double>(total_macs) /
         (static_cast<double>(pe_count) * static_cast<double>(total_cycles));
}

double RunResult::busy_fraction(isa::Unit u) const {
  return total_cycles == 0
             ? 0
             : static_cast<double>(unit(u).busy_cycles) / static_cast<double>(total_cycles);
}

double RunResult::average_power_w() const {
  const double s = seconds();
  return energy && s > 0 ? energy->total_pj() * 1e-12 / s : 0.0;
}

double RunResult::roofline_ratio() const {
  return roofline_cycles == 0
             ? 0
             : static_cast<double>(total_cycles) / static_cast<double>(roofline_cycles);
}

double RunResult::dram_bytes_per_cycle() const {
  return clock_mhz <= 0 ? 0 : dram_peak_bytes_per_s / (clock_mhz * 1e6);
}

const char* RunResult::bound(uint64_t macs, uint64_t bytes) const {
  const double compute_cycles = pe_count == 0 ? 0 : static_cast<double>(macs) / pe_count;
  const double bpc = dram_bytes_per_cycle();
  const double memory_cycles = bpc <= 0 ? 0 : static_cast<double>(bytes) / bpc;
  return compute_cycles > memory_cycles ? "compute" : "memory";
}

}  // namespace s2::sim::report
