#include "simulator/top/dram_module.h"

namespace s2::sim::top {

uint64_t DramModule::serve_now(const std::vector<timing::DramAccess>& group) {
  RunContext& ctx = *ctx_;
  const uint64_t arrival = static_cast<uint64_t>(sc_core::sc_time_stamp().value()) - ctx.base_ps;
  if (group.empty()) return arrival;
  scratch_.clear();
  uint64_t bytes = 0, host_bytes = 0;
  bool host_write = false;
  for (const timing::DramAccess& a : group) {
    bytes += a.bytes;
    if (a.host) {
      host_bytes += a.bytes;
      host_write = a.write;  // a copy has one host side (the ISA refuses host to host)
    } else {
      scratch_.push_back(timing::to_dram(a));
    }
  }
  const DmaTransfer done = ctx.dma.transfer(scratch_, arrival, *ctx.dram, host_bytes, host_write,
                                            ctx.host_link ? &*ctx.host_link : nullptr);
  report::DramEvent e;
  e.start_cycle = ctx.clock.cycle_at_or_after(done.start_ps);
  e.end_cycle = ctx.clock.cycle_at_or_after(done.done_ps);
  e.bytes = bytes;
  e.host_bytes = host_bytes;
  e.write = group.front().write;
  ctx.result.dram_events.push_back(e);
  return done.done_ps;
}

}  // namespace s2::sim::top
