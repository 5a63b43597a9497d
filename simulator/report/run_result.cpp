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

}  // namespace s2::sim::report
