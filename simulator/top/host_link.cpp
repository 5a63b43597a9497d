#include "simulator/top/host_link.h"

#include <algorithm>
#include <cmath>

#include "isa/common/errors.h"

namespace s2::sim::top {

HostLink::HostLink(const target::HostLinkDesc& link)
    : ps_per_byte_(1.0 / link.bytes_per_ps()),
      latency_ps_(static_cast<dram::Picoseconds>(std::llround(link.latency_ns * 1e3))) {
  S2_CHECK(link.bandwidth_gb_s > 0 && link.latency_ns >= 0,
           "HostLink: bandwidth " + std::to_string(link.bandwidth_gb_s) + " GB/s, latency " +
               std::to_string(link.latency_ns) + " ns");
}

dram::Picoseconds HostLink::transfer(uint64_t bytes, bool to_host, dram::Picoseconds arrival_ps) {
  Direction& d = to_host ? to_host_ : from_host_;
  const dram::Picoseconds start = std::max(arrival_ps, d.free_ps);
  const auto busy =
      static_cast<dram::Picoseconds>(std::ceil(static_cast<double>(bytes) * ps_per_byte_));
  d.free_ps = start + busy;
  d.bytes += bytes;
  d.busy_ps += busy;
  return start + busy + latency_ps_;
}

}  // namespace s2::sim::top
