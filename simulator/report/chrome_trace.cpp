#include "simulator/report/chrome_trace.h"

#include <algorithm>
#include <vector>

#include "isa/common/json.h"

namespace s2::sim::report {
namespace {

int track_of(isa::Unit u) {
  return static_cast<int>(u) + 1;
}

// Bytes moved per bin, each group's bytes spread evenly over the cycles it took.
std::vector<double> bandwidth_bins(const RunResult& r, uint64_t bin_cycles) {
  std::vector<double> bytes(kBandwidthBins, 0.0);
  for (const DramEvent& e : r.dram_events) {
    const uint64_t end = std::max(e.end_cycle, e.start_cycle + 1);
    const double per_cycle =
        static_cast<double>(e.bytes) / static_cast<double>(end - e.start_cycle);
    for (uint64_t b = e.start_cycle / bin_cycles; b < kBandwidthBins && b * bin_cycles < end; ++b) {
      const uint64_t lo = std::max(e.start_cycle, b * bin_cycles);
      const uint64_t hi = std::min(end, (b + 1) * bin_cycles);
      if (hi > lo) bytes[b] += per_cycle * static_cast<double>(hi - lo);
    }
  }
  return bytes;
}

}  // namespace

void write_chrome_trace(const RunResult& r, std::ostream& os) {
  const double us_per_cycle = 1.0 / r.clock_mhz;
  const auto us = [&](uint64_t cycle) { return static_cast<double>(cycle) * us_per_cycle; };
  // One event per line (traces get long; nlohmann writes each event), in an array by hand.
  const char* sep = "\n";
  auto event = [&](const Json& e) {
    os << sep << json_line(e);
    sep = ",\n";
  };
  os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  event({{"name", "process_name"},
         {"ph", "M"},
         {"pid", 1},
         {"tid", 0},
         {"args", {{"name", "s2train"}}}});
  for (const isa::UnitInfo& u : isa::kUnits)
    event({{"name", "thread_name"},
           {"ph", "M"},
           {"pid", 1},
           {"tid", track_of(u.id)},
           {"args", {{"name", u.name}}}});
  for (const InstructionRecord& i : r.instructions)
    event({{"name", i.op},
           {"cat", i.mnemonic},
           {"ph", "X"},
           {"pid", 1},
           {"tid", track_of(i.unit)},
           {"ts", us(i.start_cycle)},
           {"dur", us(i.cycles())},
           {"args",
            {{"index", i.index},
             {"macs", i.macs},
             {"bytes", i.bytes},
             {"roofline_cycles", i.roofline_cycles}}}});
  const uint64_t bin_cycles =
      std::max<uint64_t>(1, (r.total_cycles + kBandwidthBins - 1) / kBandwidthBins);
  const std::vector<double> bins = bandwidth_bins(r, bin_cycles);
  const double bin_seconds = static_cast<double>(bin_cycles) / (r.clock_mhz * 1e6);
  for (size_t b = 0; b < bins.size() && b * bin_cycles <= r.total_cycles; ++b)
    event({{"name", "dram_bandwidth_GBps"},
           {"ph", "C"},
           {"pid", 1},
           {"ts", us(b * bin_cycles)},
           {"args", {{"GBps", bins[b] / bin_seconds / 1e9}}}});
  for (const top::MemorySample& m : r.memory)
    event({{"name", "live_dram_bytes"},
           {"ph", "C"},
           {"pid", 1},
           {"ts", us(m.cycle)},
           {"args", {{"bytes", m.live_bytes}}}});
  os << "\n]}\n";
}

}  // namespace s2::sim::report
