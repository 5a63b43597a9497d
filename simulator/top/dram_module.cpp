#include "simulator/top/dram_module.h"

#include "isa/common/errors.h"

namespace s2::sim::top {

uint64_t DramModule::submit_now(const std::vector<timing::DramAccess>& group) {
  RunContext& ctx = *ctx_;
  const uint64_t arrival = static_cast<uint64_t>(sc_core::sc_time_stamp().value()) - ctx.base_ps;
  S2_CHECK(!group.empty(), "DRAM module: an empty group handed over");
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
  const DmaEngines::Ticket ticket =
      ctx.dma.begin(scratch_, arrival, *ctx.dram, host_bytes, host_write,
                    ctx.host_link ? &*ctx.host_link : nullptr);
  report::DramEvent e;
  e.bytes = bytes;
  e.host_bytes = host_bytes;
  e.write = group.front().write;
  event_of_.emplace(ticket, ctx.result.dram_events.size());
  ctx.result.dram_events.push_back(e);
  return ticket;
}

uint64_t DramModule::finish(uint64_t ticket) {
  RunContext& ctx = *ctx_;
  const auto found = event_of_.find(ticket);
  S2_CHECK(found != event_of_.end(), "DRAM module: finish() of a ticket not open");
  const DmaTransfer done = ctx.dma.finish(ticket, *ctx.dram);
  report::DramEvent& e = ctx.result.dram_events[found->second];
  e.start_cycle = ctx.clock.cycle_at_or_after(done.start_ps);
  e.end_cycle = ctx.clock.cycle_at_or_after(done.done_ps);
  event_of_.erase(found);
  return done.done_ps;
}

}  // namespace s2::sim::top
