#include "simulator/report/memory_trace.h"

namespace s2::sim::report {

void write_memory_trace(const RunResult& r, std::ostream& os) {
  os << "time_cycles,live_bytes\n";
  for (const top::MemorySample& m : r.memory)
    os << m.cycle << "," << m.live_bytes << "\n";
}

}  // namespace s2::sim::report
