#include "simulator/report/json_report.h"

#include "simulator/report/json_text.h"

namespace s2::sim::report {
namespace {

double ratio(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : static_cast<double>(a) / static_cast<double>(b);
}

}  // namespace

void write_json_report(const RunResult& r, std::ostream& os) {
  os << "{\n  \"program\": " << json_string(r.program)
     << ",\n  \"config\": " << json_string(r.config)
     << ",\n  \"clock_mhz\": " << json_number(r.clock_mhz) << ",\n  \"decode_window\": " << r.window
     << ",\n  \"total_cycles\": " << r.total_cycles
     << ",\n  \"milliseconds\": " << json_number(r.milliseconds()) << ",\n  \"units\": {";
  bool first = true;
  for (isa::Unit u : kTimedUnits) {
    const UnitSummary& s = r.unit(u);
    os << (first ? "\n" : ",\n") << "    " << json_string(isa::unit_name(u))
       << ": {\"busy_cycles\": " << s.busy_cycles << ", \"compute_cycles\": " << s.compute_cycles
       << ", \"utilization\": " << json_number(ratio(s.busy_cycles, r.total_cycles))
       << ", \"instructions\": " << s.instructions << "}";
    first = false;
  }
  os << "\n  },\n  \"dram\": {\"bytes_read\": " << r.dram.bytes_read
     << ", \"bytes_written\": " << r.dram.bytes_written
     << ", \"bandwidth_bytes_per_s\": " << json_number(r.dram_bandwidth_bytes_per_s())
     << ", \"peak_bytes_per_s\": " << json_number(r.dram_peak_bytes_per_s)
     << ", \"row_hits\": " << r.dram.row_hits << ", \"row_misses\": " << r.dram.row_misses
     << ", \"row_conflicts\": " << r.dram.row_conflicts << ", \"refreshes\": " << r.dram.refreshes
     << "},\n";
  os << "  \"memory\": {\"peak_bytes\": " << r.memory_peak
     << ", \"planned_peak_bytes\": " << r.planned_peak
     << ", \"planned_persistent_bytes\": " << r.planned_persistent
     << ", \"planned_arena_bytes\": " << r.planned_arena << "},\n";
  os << "  \"roofline\": {\"cycles\": " << r.roofline_cycles
     << ", \"ratio\": " << json_number(r.roofline_ratio()) << ", \"total_macs\": " << r.total_macs
     << ", \"total_bytes\": " << r.total_bytes << "},\n  \"deadlock\": [";
  for (size_t k = 0; k < r.deadlock.size(); ++k) {
    os << (k ? ", " : "") << "{\"index\": " << r.deadlock[k].index << ", \"waiting_for\": [";
    for (size_t d = 0; d < r.deadlock[k].waiting_for.size(); ++d)
      os << (d ? ", " : "") << r.deadlock[k].waiting_for[d];
    os << "]}";
  }
  os << "],\n  \"instructions\": [";
  for (size_t k = 0; k < r.instructions.size(); ++k) {
    const InstructionRecord& i = r.instructions[k];
    os << (k ? ",\n" : "\n") << "    {\"index\": " << i.index << ", \"op\": " << json_string(i.op)
       << ", \"mnemonic\": " << json_string(i.mnemonic)
       << ", \"unit\": " << json_string(isa::unit_name(i.unit))
       << ", \"start_cycle\": " << i.start_cycle << ", \"end_cycle\": " << i.end_cycle
       << ", \"cycles\": " << i.cycles() << ", \"compute_cycles\": " << i.compute_cycles
       << ", \"tiles\": " << i.tiles << ", \"macs\": " << i.macs << ", \"bytes\": " << i.bytes
       << ", \"roofline_cycles\": " << i.roofline_cycles << ", \"bound\": \""
       << r.bound(i.macs, i.bytes) << "\"}";
  }
  os << "\n  ]\n}\n";
}

}  // namespace s2::sim::report
