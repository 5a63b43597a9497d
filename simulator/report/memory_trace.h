#pragma once
// `s2sim run --memory-trace out.csv`: live DRAM bytes over simulated time. Header
// "time_cycles,live_bytes", then one row per change (top/memory_tracker.h); several rows may
// share a cycle, in the order the changes happened, so the column maximum is the peak.

#include <ostream>

#include "simulator/report/run_result.h"

namespace s2::sim::report {

void write_memory_trace(const RunResult& result, std::ostream& os);

}  // namespace s2::sim::report
