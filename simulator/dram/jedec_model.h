#pragma once
// JedecModel: the DramModel of JEDEC devices (DDR4, LPDDR4, HBM2 and a generic "jedec"): an
// address mapping (address_mapping.h), one JedecChannel per channel, and an FR-FCFS
// controller queue per channel.
//
// Scheduling. Channels are independent, so a group is split by channel and each channel runs
// its own controller. Its queue holds up to kQueueDepth bursts of the group in arrival order
// (age); a burst enters when the group arrives or, once the queue is full, when an earlier
// burst's column command frees its slot. Each step picks, FR-FCFS in event time:
//   1. the burst whose column command (RD/WR) can issue first: "first ready". A row hit is
//      ready for it now; a miss or conflict first needs its PRE/ACT, which issue as early as
//      their own windows allow, typically while other banks' bursts still use the bus;
//   2. on a tie, a row hit before a miss or conflict, then the oldest;
//   3. except that the oldest burst is taken as soon as kMaxBypass younger ones have been
//      served before it, so a stream of row hits cannot starve a conflict forever.
// Ranking by the column slot rather than "any hit first" matters: with bank groups, the next
// burst to the same group must wait tCCD_L, and a ready miss to another group fills that gap.
// The picked burst's commands are committed to the channel (refreshes included), and its data
// end is its completion. Cost: at most kQueueDepth command plans per burst (one per distinct
// bank, row and direction in the queue, see pick()); no per-cycle work.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/jedec_channel.h"

namespace s2::sim::dram {

class JedecModel final : public DramModel {
 public:
  static constexpr std::size_t kQueueDepth = 32;
  static constexpr uint32_t kMaxBypass = 64;

  JedecModel(const target::DramDesc& desc, std::string backend);

  GroupResult serve(const std::vector<Access>& group, Picoseconds arrival_ps) override;
  const DramStats& stats() const override { return stats_; }
  double peak_bandwidth_bytes_per_s() const override { return peak_; }
  uint32_t burst_bytes() const override { return mapping_.burst_bytes(); }
  std::string_view backend() const override { return backend_; }

 private:
  struct Queued {
    BurstRequest request;
    uint32_t access = 0;  // index into the group
    uint32_t bypassed = 0;
    uint32_t bank_slot = 0;  // rank * banks_per_rank + bank_group * banks_per_group + bank
  };
  // The burst pick() chose and its plan on the current channel state.
  struct Pick {
    std::size_t index = 0;
    CommandPlan plan;
  };
  // Per bank slot, the last request pick() planned in scan `scan` (see pick()).
  struct Seen {
    uint64_t scan = 0;
    uint32_t row = 0;
    bool write = false;
  };
  // Walks the bursts of one channel in a group, in address order per access, accesses in order.
  class BurstCursor;

  void check_range(const std::vector<Access>& group) const;
  void serve_channel(uint32_t channel, const std::vector<Access>& group, Cycle arrival,
                     std::vector<Cycle>& access_done);
  Pick pick(const JedecChannel& channel);

  std::string backend_;
  AddressMapping mapping_;
  DramClock clock_;
  JedecTimings timings_;
  double peak_;
  uint64_t capacity_;
  std::vector<JedecChannel> channels_;
  DramStats stats_;
  uint32_t banks_per_group_;
  uint32_t banks_per_rank_;
  std::vector<Queued> queue_;  // reused between calls
  std::vector<Seen> seen_;     // per bank slot; scratch of pick()
  uint64_t scan_ = 0;          // pick() calls so far: stamps `seen_`
};

}  // namespace s2::sim::dram
