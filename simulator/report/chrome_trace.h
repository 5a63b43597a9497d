#pragma once
// `s2sim run --trace out.json`: Chrome / Perfetto trace-event JSON ({"traceEvents": [...]}).
// One process "s2train"; one track (tid) per unit with a complete event ("ph": "X") per
// instruction, named by its op; counter tracks ("ph": "C") "dram_bandwidth_GBps" (averaged
// over kBandwidthBins equal bins of the run) and "live_dram_bytes" (every change). Times are
// microseconds of simulated time at the configured clock.

#include <ostream>

#include "simulator/report/run_result.h"

namespace s2::sim::report {

inline constexpr size_t kBandwidthBins = 512;

void write_chrome_trace(const RunResult& result, std::ostream& os);

}  // namespace s2::sim::report
