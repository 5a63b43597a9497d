#pragma once
// The DMA engines every DRAM transfer of the accelerator goes through: the operand loads and
// result stores of the PE array's and the PPU's tiles, and the DMA instructions' copies and
// fills. One transfer is one group of accesses (a tile's loads, or its stores). The target's
// `dma` section describes the engines, and each key bounds the transfers:
//
//  * engines: that many independent engines. A transfer takes the engine that is free first
//    (the lowest-numbered on a tie) and holds it until its last byte has moved; one arriving
//    while every engine is busy waits for the first to free, and reaches the DRAM then.
//  * width: an engine moves at most `width` bytes per accelerator cycle, so a transfer of B
//    bytes takes at least ceil(B / width) cycles.
//  * max_outstanding: an engine keeps at most that many DRAM bursts in flight. No burst
//    returns sooner than a read to an open row, L (DramModel::read_hit_latency_ps), so by
//    Little's law a transfer of b bursts takes at least ceil(b / max_outstanding) round trips
//    of L. (A lower bound: the DRAM model's own time, with row misses and contention, is
//    usually longer. The controller's queues bound what is in flight per channel, not per engine.)
//
// A transfer ends at the latest of the DRAM model's completion and these two floors. A transfer
// of host memory (a copy's host side, DramAccess::host) holds an engine the same way, is bound
// by its width, and crosses the host link (host_link.h) instead of the DRAM. Such a copy is one
// stream (timing::Tile::streamed): the source's reads and the destination's writes in one
// group, the destination side starting when the source's first data arrives (the link's
// latency after the start for a read of host memory, a DRAM row hit's for a write to it), so
// the copy ends at the slower side's pace plus one latency. Plain C++ with no clock of its
// own: the SystemC DRAM module calls it at the caller's time.
//
// A transfer is begun and finished apart: begin() takes an engine and submits the DRAM bursts
// (DramModel::submit), finish() has the DRAM decide them (DramModel::complete) and returns the
// end. In between, transfers begun by other requesters share the DRAM controller's queues with
// it. An engine whose transfer is begun but not finished is busy until an unknown time; a
// transfer that finds no engine known to be free by its arrival finishes every open transfer
// first, to learn when each engine frees (the DRAM then schedules it behind them, as it waits
// for the engine anyway).

#include <cstdint>
#include <map>
#include <vector>

#include "isa/target/target_desc.h"
#include "simulator/dram/dram_model.h"
#include "simulator/top/host_link.h"

namespace s2::sim::top {

struct DmaTransfer {
  dram::Picoseconds start_ps = 0;  // when an engine took it (>= arrival)
  dram::Picoseconds done_ps = 0;   // when its last byte moved
  uint32_t engine = 0;
};

class DmaEngines {
 public:
  DmaEngines(const target::DmaDesc& dma, double accelerator_clock_mhz);

  // Moves `group` (non-empty) arriving at `arrival_ps` through the first free engine, the DRAM
  // model serving its bursts from the transfer's start, and `host_bytes` bytes of host memory
  // (written to the host when `host_write`) over `link` from the same start. Either may be
  // empty; `link` is needed only with host bytes.
  DmaTransfer transfer(const std::vector<dram::Access>& group, dram::Picoseconds arrival_ps,
                       dram::DramModel& dram, uint64_t host_bytes = 0, bool host_write = false,
                       HostLink* link = nullptr) {
    return finish(begin(group, arrival_ps, dram, host_bytes, host_write, link), dram);
  }

  using Ticket = uint64_t;
  // transfer() in two steps (above): begin() starts it and submits its DRAM bursts; finish()
  // (once per ticket, with the same `dram`) completes it.
  Ticket begin(const std::vector<dram::Access>& group, dram::Picoseconds arrival_ps,
               dram::DramModel& dram, uint64_t host_bytes = 0, bool host_write = false,
               HostLink* link = nullptr);
  DmaTransfer finish(Ticket ticket, dram::DramModel& dram);

  // Picoseconds transfers spent waiting for a free engine, summed over the run.
  dram::Picoseconds wait_ps() const { return wait_ps_; }

 private:
  double cycle_ps_;
  uint32_t width_;
  uint32_t max_outstanding_;
  // A begun transfer: what finish() needs, or its result once finished.
  struct Open {
    DmaTransfer transfer;  // done_ps is valid once `finished`
    bool finished = false;
    bool has_dram = false;
    dram::GroupId group = 0;
    dram::Picoseconds floor_ps = 0;  // host side, width and outstanding floors
  };
  // Finishes `open` (not yet finished) and frees its engine at its end.
  void close(Open& open, dram::DramModel& dram);

  std::vector<dram::Picoseconds> free_at_;  // per engine; meaningless while it has an open one
  std::vector<bool> busy_;                  // per engine: a begun transfer not yet finished
  std::map<Ticket, Open> open_;             // begun, not yet handed to finish()'s caller
  // The tickets of open_ not yet finished, in order: at most one per engine (an engine with one
  // is busy), while open_ also keeps the finished transfers until their finish() call.
  std::vector<Ticket> unfinished_;
  Ticket next_ = 0;
  dram::Picoseconds wait_ps_ = 0;
};

}  // namespace s2::sim::top
