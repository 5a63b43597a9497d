#include "simulator/report/chrome_trace.h"

#include <algorithm>
#include <vector>

#include "simulator/report/json_text.h"

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
  const auto us = [&](uint64_t cycle) {
    return json_number(static_cast<double>(cycle) * us_per_cycle);
  };
  os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  os << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": "
        "{\"name\": \"s2train\"}}";
  for (isa::Unit u : {isa::Unit::Control, isa::Unit::Pe, isa::Unit::Ppu, isa::Unit::Dma})
    os << ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": " << track_of(u)
       << ", \"args\": {\"name\": " << json_string(isa::unit_name(u)) << "}}";
  for (const InstructionRecord& i : r.instructions) {
    os << ",\n{\"name\": " << json_string(i.op) << ", \"cat\": " << json_string(i.mnemonic)
       << ", \"ph\": \"X\", \"pid\": 1, \"tid\": " << track_of(i.unit)
       << ", \"ts\": " << us(i.start_cycle) << ", \"dur\": " << us(i.cycles())
       << ", \"args\": {\"index\": " << i.index << ", \"macs\": " << i.macs
       << ", \"bytes\": " << i.bytes << ", \"roofline_cycles\": " << i.roofline_cycles << "}}";
  }
  const uint64_t bin_cycles =
      std::max<uint64_t>(1, (r.total_cycles + kBandwidthBins - 1) / kBandwidthBins);
  const std::vector<double> bins = bandwidth_bins(r, bin_cycles);
  const double bin_seconds = static_cast<double>(bin_cycles) / (r.clock_mhz * 1e6);
  for (size_t b = 0; b < bins.size() && b * bin_cycles <= r.total_cycles; ++b)
    os << ",\n{\"name\": \"dram_bandwidth_GBps\", \"ph\": \"C\", \"pid\": 1, \"ts\": "
       << us(b * bin_cycles)
       << ", \"args\": {\"GBps\": " << json_number(bins[b] / bin_seconds / 1e9) << "}}";
  for (const top::MemorySample& m : r.memory)
    os << ",\n{\"name\": \"live_dram_bytes\", \"ph\": \"C\", \"pid\": 1, \"ts\": " << us(m.cycle)
       << ", \"args\": {\"bytes\": " << m.live_bytes << "}}";
  os << "\n]}\n";
}

}  // namespace s2::sim::report
