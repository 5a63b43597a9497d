#include "simulator/report/run_result.h"

namespace s2::sim::report {

double RunResult::dram_bandwidth_bytes_per_s() const {
  const double s = seconds();
  return s <= 0 ? 0 : static_cast<double>(dram.bytes_read + dram.bytes_written) / s;
}

double DatatypeSummary::utilization(uint32_t pe_count) const {
  const double capacity =
      static_cast<double>(pe_count) * macs_per_pe * static_cast<double>(pe_cycles);
  return capacity > 0 ? static_cast<double>(macs) / capacity : 0;
}

double RunResult::peak_macs() const {
  // A MAC of a mode with more than one MAC per PE per cycle takes a fraction of a PE-cycle.
  // (Without such modes this is exactly the MAC count, so f32 figures keep their bits.)
  uint64_t single = total_macs;
  double packed = 0;
  for (const auto& [dtype, s] : datatypes)
    if (s.macs_per_pe > 1) {
      single -= s.macs;
      packed += static_cast<double>(s.macs) / s.macs_per_pe;
    }
  return static_cast<double>(single) + packed;
}

double RunResult::mac_utilization() const {
  if (total_cycles == 0 || pe_count == 0) return 0;
  return peak_macs() / (static_cast<double>(pe_count) * static_cast<double>(total_cycles));
}

bool RunResult::mixed_precision() const {
  for (const auto& entry : datatypes)
    if (entry.first == isa::DType::BF16 || entry.first == isa::DType::F16) return true;
  return false;
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
