#pragma once
// The link to host memory (target.host_link: a PCIe or CXL port). The DMA engines move the
// host side of a `copy` naming host memory through it (dma_engines.h); the DRAM side goes
// through the DRAM model as every other transfer.
//
// The model: the link is full duplex, and each direction carries one transfer at a time at
// `bandwidth`. A transfer of B bytes in one direction, handed over at time t, starts when that
// direction is free, s = max(t, free), holds it for B / bandwidth, and ends `latency` after its
// last byte left: done = s + B / bandwidth + latency. The latency of transfers in a row thus
// overlaps (the link pipelines), and a transfer to the host never delays one from it. For a
// read of host memory (data to the device) latency is the request's round trip before data
// flows; for a write it is the flight of the last byte to host memory. Plain C++ with no clock
// of its own, like DmaEngines.

#include <cstdint>

#include "isa/target/target_desc.h"
#include "simulator/dram/dram_model.h"

namespace s2::sim::top {

class HostLink {
 public:
  explicit HostLink(const target::HostLinkDesc& link);

  // Moves `bytes` to the host (`to_host`, a write of host memory) or from it, handed over at
  // `arrival_ps`; returns when the transfer ends.
  dram::Picoseconds transfer(uint64_t bytes, bool to_host, dram::Picoseconds arrival_ps);

  dram::Picoseconds latency_ps() const { return latency_ps_; }
  // Bytes moved and picoseconds the direction was busy, summed over the run.
  uint64_t bytes(bool to_host) const { return dir(to_host).bytes; }
  dram::Picoseconds busy_ps(bool to_host) const { return dir(to_host).busy_ps; }

 private:
  struct Direction {
    dram::Picoseconds free_ps = 0;
    uint64_t bytes = 0;
    dram::Picoseconds busy_ps = 0;
  };
  const Direction& dir(bool to_host) const { return to_host ? to_host_ : from_host_; }

  double ps_per_byte_;
  dram::Picoseconds latency_ps_;
  Direction to_host_;
  Direction from_host_;
};

}  // namespace s2::sim::top
