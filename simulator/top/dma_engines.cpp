#include "simulator/top/dma_engines.h"

#include <algorithm>
#include <cmath>

#include "isa/common/errors.h"

namespace s2::sim::top {

DmaEngines::DmaEngines(const target::DmaDesc& dma, double accelerator_clock_mhz)
    : cycle_ps_(1e6 / accelerator_clock_mhz),
      width_(dma.width_bytes),
      max_outstanding_(dma.max_outstanding),
      free_at_(dma.engines, 0) {
  S2_CHECK(dma.engines > 0 && dma.width_bytes > 0 && dma.max_outstanding > 0,
           "DMA engines: the target has " + std::to_string(dma.engines) + " engines of width " +
               std::to_string(dma.width_bytes) + " with " + std::to_string(dma.max_outstanding) +
               " bursts in flight");
}

DmaTransfer DmaEngines::transfer(const std::vector<dram::Access>& group,
                                 dram::Picoseconds arrival_ps, dram::DramModel& dram,
                                 uint64_t host_bytes, bool host_write, HostLink* link) {
  S2_CHECK(host_bytes == 0 || link != nullptr, "DMA engines: host bytes without a host link");
  DmaTransfer t;
  t.engine =
      static_cast<uint32_t>(std::min_element(free_at_.begin(), free_at_.end()) - free_at_.begin());
  t.start_ps = std::max(arrival_ps, free_at_[t.engine]);
  wait_ps_ += t.start_ps - arrival_ps;

  uint64_t bytes = 0, bursts = 0;
  const uint64_t burst = dram.burst_bytes();
  for (const dram::Access& a : group) {
    bytes += a.bytes;
    bursts += dram::bursts_of(a, burst);
  }
  // A copy with a side in host memory streams: its destination is written as its source's data
  // arrives, so the DRAM side of a read from the host starts when the link's first data does,
  // and the link side of a write to the host when the DRAM's first data does.
  dram::Picoseconds dram_start = t.start_ps, host_start = t.start_ps;
  if (host_bytes != 0 && !group.empty()) {
    if (host_write)
      host_start += dram.read_hit_latency_ps();
    else
      dram_start += link->latency_ps();
  }
  const dram::Picoseconds dram_done =
      group.empty() ? t.start_ps : dram.serve(group, dram_start).done_ps;
  const dram::Picoseconds host_done =
      host_bytes == 0 ? t.start_ps : link->transfer(host_bytes, host_write, host_start);
  bytes += host_bytes;
  const double width_cycles = std::ceil(static_cast<double>(bytes) / width_);
  const auto width_floor = static_cast<dram::Picoseconds>(std::ceil(width_cycles * cycle_ps_));
  const uint64_t round_trips = (bursts + max_outstanding_ - 1) / max_outstanding_;
  const dram::Picoseconds outstanding_floor = round_trips * dram.read_hit_latency_ps();
  t.done_ps =
      std::max({dram_done, host_done, t.start_ps + width_floor, t.start_ps + outstanding_floor});
  free_at_[t.engine] = t.done_ps;
  return t;
}

}  // namespace s2::sim::top
