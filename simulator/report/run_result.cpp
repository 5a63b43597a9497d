#include "simulator/report/run_result.h"

namespace s2::sim::report {

double RunResult::dram_bandwidth_bytes_per_s() const {
  const double s = seconds();
  return s <= 0 ? 0 : static_cast<double>(dram.bytes_read + dram.bytes_written) / s;
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
