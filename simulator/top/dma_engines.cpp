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
                                 dram::Picoseconds arrival_ps, dram::DramModel& dram) {
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
  const dram::GroupResult served = dram.serve(group, t.start_ps);
  const double width_cycles = std::ceil(static_cast<double>(bytes) / width_);
  const auto width_floor = static_cast<dram::Picoseconds>(std::ceil(width_cycles * cycle_ps_));
  const uint64_t round_trips = (bursts + max_outstanding_ - 1) / max_outstanding_;
  const dram::Picoseconds outstanding_floor = round_trips * dram.read_hit_latency_ps();
  t.done_ps = std::max({served.done_ps, t.start_ps + width_floor, t.start_ps + outstanding_floor});
  free_at_[t.engine] = t.done_ps;
  return t;
}

}  // namespace s2::sim::top
