#pragma once
// DramModel: the simulator's main memory, behind one interface so a backend can be swapped
// (DESIGN.md §5). Pure C++: the SystemC DRAM module owns one model and calls it.
//
// Contract
// --------
// * Time is in picoseconds at this interface; inside, a backend runs on its own DRAM clock
//   (target::DramDesc::clock_mhz), independent of the accelerator clock. An arrival between
//   two DRAM clock edges is served from the next edge.
// * The unit of work is a GROUP of accesses (one tile load or store, or whatever a requester has
//   in flight together) that arrives at one time. submit() hands a group to the controllers;
//   complete() decides bursts, in time order, until every burst of that group is decided, and
//   returns when each of its accesses and the whole group complete. serve() is both at once.
//   Time advances per burst, never per clock cycle, so the cost of a call is proportional to the
//   bursts it moves.
// * Each channel's controller holds a read queue and a write queue shared by the bursts of every
//   submitted group (jedec_model.h): bursts of different groups are scheduled among each other,
//   so a later group's burst to an idle bank need not wait for an earlier group's burst to a
//   busy one. A group's bursts enter the queues, in order, from its arrival (plus the front end's
//   latency) as capacity allows, round-robin with other groups waiting for room.
// * Decisions are causal and final: complete() decides a burst only when every group submitted
//   so far has been considered, and nothing decided is undone. So groups that are to compete
//   must all be submitted before complete() is asked for any of them; a group submitted after
//   complete() has decided past its arrival is scheduled behind what was decided (a caller that
//   serves one group at a time gets the behaviour of a controller whose queue holds one group).
//   Groups enter the queues in the order of their arrivals, whatever the order of the calls
//   (a DMA copy from host memory reaches the DRAM a link latency after it is handed over), but
//   never ahead of a group that has begun to enter.
// * An access completes when its last data beat has crossed the bus (reads and writes alike).
// * Deterministic: the same sequence of calls gives the same times and statistics.
// * An access that reaches past the configured capacity is a UserError (the executable's
//   memory plan and the target disagree); nothing is served for that group.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "isa/target/target_desc.h"

namespace s2::sim::dram {

using Picoseconds = uint64_t;
using GroupId = uint64_t;

enum class AccessKind : uint8_t { Read, Write };

struct Access {
  uint64_t address = 0;  // byte address in DRAM
  uint64_t bytes = 0;    // length; 0 completes at arrival and moves nothing
  AccessKind kind = AccessKind::Read;
};

// The bursts of `burst_bytes` that `a` touches (every access is rounded out to whole bursts).
inline uint64_t bursts_of(const Access& a, uint64_t burst_bytes) {
  return a.bytes == 0 ? 0 : (a.address + a.bytes - 1) / burst_bytes - a.address / burst_bytes + 1;
}

struct GroupResult {
  Picoseconds done_ps = 0;                  // completion of the whole group (>= arrival)
  std::vector<Picoseconds> access_done_ps;  // per access, in the order given
};

// Cumulative over the model's lifetime.
struct DramStats {
  uint64_t bytes_read = 0;  // bytes the accesses asked for (not rounded up to bursts)
  uint64_t bytes_written = 0;
  uint64_t read_bursts = 0;
  uint64_t write_bursts = 0;
  uint64_t row_hits = 0;       // burst found its row open
  uint64_t row_misses = 0;     // bank was closed: ACT needed
  uint64_t row_conflicts = 0;  // another row was open: PRE + ACT needed
  uint64_t activates = 0;
  uint64_t precharges = 0;              // including those that close banks for a refresh
  uint64_t refreshes = 0;               // all-bank REF commands, summed over ranks and channels
  uint64_t reads_from_write_queue = 0;  // read bursts answered by a queued write's data
  Picoseconds data_bus_busy_ps = 0;     // data beats on the bus, summed over channels
  Picoseconds last_done_ps = 0;         // latest completion of any group so far
};

class DramModel {
 public:
  virtual ~DramModel() = default;

  // Hands `group`, arriving at `arrival_ps`, to the controllers; decides nothing. The id is for
  // complete(), which must be called once per submitted group.
  virtual GroupId submit(const std::vector<Access>& group, Picoseconds arrival_ps) = 0;
  // Decides until every burst of group `id` is decided; see the contract above.
  virtual GroupResult complete(GroupId id) = 0;
  // submit() then complete().
  GroupResult serve(const std::vector<Access>& group, Picoseconds arrival_ps) {
    return complete(submit(group, arrival_ps));
  }

  // Lets the model serve a group's independent parts (e.g. channels) on up to `threads`
  // threads, the caller's included; 1 (the default) runs everything on the caller. Results
  // never depend on it.
  virtual void set_threads(unsigned threads) { (void)threads; }

  virtual const DramStats& stats() const = 0;

  // Every channel transferring on every beat: the ceiling no pattern can exceed.
  virtual double peak_bandwidth_bytes_per_s() const = 0;

  // The smallest transfer: every access is rounded out to whole bursts of this size.
  virtual uint32_t burst_bytes() const = 0;

  // From a read's arrival to its last data beat when its row is already open and nothing else
  // is queued (for a JEDEC device the front end's latency + tCL + the burst): the shortest round
  // trip a burst can have, so a requester with k bursts in flight moves at most k bursts per this
  // time.
  virtual Picoseconds read_hit_latency_ps() const = 0;

  // The registry name this model was built under ("ddr4", "jedec", ...).
  virtual std::string_view backend() const = 0;
};

// Builds the backend registered for `desc`'s preset family (dram_registry.h); an unknown
// family is a UserError listing the known backends.
std::unique_ptr<DramModel> make_dram_model(const target::DramDesc& desc);

}  // namespace s2::sim::dram
