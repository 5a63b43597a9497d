#include "simulator/top/dram_module.h"

namespace s2::sim::top {

uint64_t DramModule::serve_now(const std::vector<timing::DramAccess>& group) {
  RunContext& ctx = *ctx_;
  const uint64_t arrival = static_cast<uint64_t>(sc_core::sc_time_stamp().value()) - ctx.base_ps;
  if (group.empty()) return arrival;
  scratch_.clear();
  uint64_t bytes = 0;
  for (const timing::DramAccess& a : group) {
    scratch_.push_back(timing::to_dram(a));
    bytes += a.bytes;
  }
  const DmaTransfer done = ctx.dma.transfer(scratch_, arrival, *ctx.dram);
  report::DramEvent e;
  e.start_cycle = ctx.clock.cycle_at_or_after(done.start_ps);
  e.end_cycle = ctx.clock.cycle_at_or_after(done.done_ps);
  e.bytes = bytes;
  e.write = group.front().write;
  ctx.result.dram_events.push_back(e);
  return done.done_ps;
}

}  // namespace s2::sim::top
