#include "simulator/top/run_context.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace s2::sim::top {

uint64_t AcceleratorClock::edge_ps(uint64_t cycle) const {
  return static_cast<uint64_t>(std::llround(static_cast<double>(cycle) * period_ps_));
}

uint64_t AcceleratorClock::cycle_at_or_after(uint64_t ps) const {
  const double estimate = std::ceil(static_cast<double>(ps) / period_ps_ - 1e-9);
  auto cycle = static_cast<uint64_t>(std::max(estimate, 0.0));
  // The rounding of edge_ps may put the estimated edge a picosecond early or late.
  while (edge_ps(cycle) < ps)
    ++cycle;
  while (cycle > 0 && edge_ps(cycle - 1) >= ps)
    --cycle;
  return cycle;
}

RunContext::RunContext(const isa::Executable& e, const target::TargetDesc& t, SimOptions o)
    : exe(e),
      target(t),
      options(std::move(o)),
      clock(t.clock_mhz),
      pe_models(t),
      dram(dram::make_dram_model(t.dram)),
      dma(t.dma, t.clock_mhz),
      memory(e),
      completed(e.instructions.size(), 0) {
  if (t.host_link) host_link.emplace(*t.host_link);
  result.instructions.resize(e.instructions.size());
  const unsigned threads =
      options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  dram->set_threads(threads);
}

void RunContext::finished(const report::InstructionRecord& record) {
  result.instructions[record.index] = record;
  completed[record.index] = 1;
  ++completed_count;
  report::UnitSummary& u = result.units[static_cast<size_t>(record.unit)];
  u.busy_cycles += record.cycles();
  u.compute_cycles += record.compute_cycles;
  ++u.instructions;
  memory.completed(record.index, record.end_cycle);
  if (record.end_cycle > result.total_cycles) result.total_cycles = record.end_cycle;
  if (options.progress) options.progress(completed_count, exe.instructions.size());
}

std::string instruction_name(const isa::Executable& exe, uint32_t index) {
  if (index < exe.debug.size() && !exe.debug[index].empty()) return exe.debug[index].front();
  return std::string(exe.instructions[index].info().mnemonic);
}

}  // namespace s2::sim::top
