#include "simulator/top/dma_engines.h"

#include <algorithm>
#include <cmath>

#include "isa/common/errors.h"

namespace s2::sim::top {

DmaEngines::DmaEngines(const target::DmaDesc& dma, double accelerator_clock_mhz)
    : cycle_ps_(1e6 / accelerator_clock_mhz),
      width_(dma.width_bytes),
      max_outstanding_(dma.max_outstanding),
      free_at_(dma.engines, 0),
      busy_(dma.engines, false) {
  S2_CHECK(dma.engines > 0 && dma.width_bytes > 0 && dma.max_outstanding > 0,
           "DMA engines: the target has " + std::to_string(dma.engines) + " engines of width " +
               std::to_string(dma.width_bytes) + " with " + std::to_string(dma.max_outstanding) +
               " bursts in flight");
}

DmaEngines::Ticket DmaEngines::begin(const std::vector<dram::Access>& group,
                                     dram::Picoseconds arrival_ps, dram::DramModel& dram,
                                     uint64_t host_bytes, bool host_write, HostLink* link) {
  S2_CHECK(host_bytes == 0 || link != nullptr, "DMA engines: host bytes without a host link");
  // The engine free first among those whose end is known; if none is free by the arrival, the
  // open transfers' ends decide, so finish them.
  const auto first_known = [&] {
    std::size_t best = free_at_.size();
    for (std::size_t e = 0; e < free_at_.size(); ++e) {
      if (!busy_[e] && (best == free_at_.size() || free_at_[e] < free_at_[best])) best = e;
    }
    return best;
  };
  std::size_t engine = first_known();
  if (engine == free_at_.size() || free_at_[engine] > arrival_ps) {
    for (const Ticket ticket : unfinished_)
      close(open_.at(ticket), dram);
    unfinished_.clear();
    engine = first_known();
  }
  Open open;
  DmaTransfer& t = open.transfer;
  t.engine = static_cast<uint32_t>(engine);
  t.start_ps = std::max(arrival_ps, free_at_[engine]);
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
  open.has_dram = !group.empty();
  if (open.has_dram) open.group = dram.submit(group, dram_start);
  const dram::Picoseconds host_done =
      host_bytes == 0 ? t.start_ps : link->transfer(host_bytes, host_write, host_start);
  bytes += host_bytes;
  const double width_cycles = std::ceil(static_cast<double>(bytes) / width_);
  const auto width_floor = static_cast<dram::Picoseconds>(std::ceil(width_cycles * cycle_ps_));
  const uint64_t round_trips = (bursts + max_outstanding_ - 1) / max_outstanding_;
  const dram::Picoseconds outstanding_floor = round_trips * dram.read_hit_latency_ps();
  open.floor_ps = std::max({host_done, t.start_ps + width_floor, t.start_ps + outstanding_floor});
  busy_[engine] = true;
  const Ticket ticket = next_++;
  open_.emplace(ticket, open);
  unfinished_.push_back(ticket);
  return ticket;
}

void DmaEngines::close(Open& open, dram::DramModel& dram) {
  DmaTransfer& t = open.transfer;
  const dram::Picoseconds dram_done =
      open.has_dram ? dram.complete(open.group).done_ps : t.start_ps;
  t.done_ps = std::max(dram_done, open.floor_ps);
  free_at_[t.engine] = t.done_ps;
  busy_[t.engine] = false;
  open.finished = true;
}

DmaTransfer DmaEngines::finish(Ticket ticket, dram::DramModel& dram) {
  const auto found = open_.find(ticket);
  S2_CHECK(found != open_.end(), "DMA engines: finish() of a transfer not begun or finished");
  if (!found->second.finished) {
    close(found->second, dram);
    unfinished_.erase(std::find(unfinished_.begin(), unfinished_.end(), ticket));
  }
  const DmaTransfer t = found->second.transfer;
  open_.erase(found);
  return t;
}

}  // namespace s2::sim::top
