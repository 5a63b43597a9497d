#pragma once
// JedecModel: the DramModel of JEDEC devices (DDR4, LPDDR4, HBM2 and a generic "jedec"): an
// address mapping (address_mapping.h), one JedecChannel per channel, and an FR-FCFS
// controller queue per channel.
//
// Scheduling (dram.controller.scheduler: frfcfs, the default; fcfs serves the queue strictly
// oldest first, skipping everything below). Channels are independent, so a group is split by
// channel and each channel runs its own controller (on threads of their own when
// set_threads() allows and the group is large enough; the results do not change). Its queue holds
// up to kQueueDepth bursts of the group in arrival order (age); a burst enters when the group
// arrives or, once the queue is full, when an earlier burst's column command frees its slot. Each
// step picks, FR-FCFS in event time:
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
// bank, row and direction in the queue, see pick()), typically one or two: the oldest hit at
// the column floor ends the search, and a miss or conflict is planned only if a lower bound of
// its column slot could beat the best found (once one of a rank fails it, no younger one of
// that rank is looked at: the bound never decreases with age); no per-cycle work.
// tests/simulator/dram_scheduler_test.cpp holds the scheduler to a plain restatement of these
// rules.
//
// Row policy (dram.controller.row_policy): open, the default, leaves a row open after its
// access; closed precharges the bank right after a burst (auto-precharge, at the earliest its
// tRAS / tRTP / tWR allow) unless a burst still queued wants the same row.
// Address mapping: dram.controller.address_mapping (address_mapping.h).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "isa/common/task_pool.h"
#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/jedec_channel.h"

namespace s2::sim::dram {

class JedecModel final : public DramModel {
 public:
  static constexpr std::size_t kQueueDepth = 32;
  static constexpr uint32_t kMaxBypass = 64;
  // A group moving fewer bursts than this is served on the caller's thread alone: handing it
  // to another thread would cost more than it saves.
  static constexpr uint64_t kParallelBursts = 256;

  JedecModel(const target::DramDesc& desc, std::string backend);
  JedecModel(const JedecModel&) = delete;  // its controllers point at its mapping
  JedecModel& operator=(const JedecModel&) = delete;

  GroupResult serve(const std::vector<Access>& group, Picoseconds arrival_ps) override;
  // Channels are independent, so a group's channels are served in parallel on up to `threads`
  // threads (capped at the channel count); every result is the same for every thread count.
  void set_threads(unsigned threads) override;
  const DramStats& stats() const override { return stats_; }
  double peak_bandwidth_bytes_per_s() const override { return peak_; }
  uint32_t burst_bytes() const override { return mapping_.burst_bytes(); }
  Picoseconds read_hit_latency_ps() const override {
    return clock_.to_ps(timings_.CL + timings_.burst);
  }
  std::string_view backend() const override { return backend_; }

 private:
  static constexpr uint8_t kNone = 0xFF;
  static_assert(kQueueDepth < kNone, "queue slots and streams are numbered in a byte");

  // A queued burst, in one of kQueueDepth slots.
  struct Queued {
    BurstRequest request;
    uint32_t access = 0;  // index into the group
    uint32_t seq = 0;     // enqueue order within the Controller::serve() call: its age
    // Picks made before this burst entered, plus its queue position then. Its position only
    // drops when an older burst is picked, and every other pick since it entered took a
    // younger one, so once it is the oldest, picks - age_key is how many younger bursts were
    // served before it: the bypass count of FR-FCFS rule 3, kept without touching every older
    // entry on each pick.
    uint64_t age_key = 0;
    uint8_t next = kNone;  // the next younger queued burst of the same Stream
  };
  // The queued bursts of one (bank, row, direction), oldest first. pick() plans only a
  // stream's oldest burst (why that is exact: jedec_model.cpp, above pick()).
  // What pick() reads of every stream is here, so testing one costs no load of its slot.
  struct Stream {
    uint64_t key = 0;       // stream_key() of its bursts
    Cycle head_ready = 0;   // slots_[head].request.ready
    uint32_t head_seq = 0;  // slots_[head].seq
    uint8_t head = kNone;   // oldest burst's slot
    uint8_t tail = kNone;   // youngest burst's slot
    uint8_t rank = 0;       // of its bursts
    uint32_t bank() const { return static_cast<uint32_t>(key >> 1) & 0x7fffffffu; }
    uint32_t row() const { return static_cast<uint32_t>(key >> 32); }
  };
  // Walks the bursts of one channel in a group, in address order per access, accesses in order.
  class BurstCursor;

  // One channel's controller: its bank state, its queue, and per group what it finished when
  // and what it counted. Controllers share nothing but the model's read-only address mapping,
  // so several serve a group at once.
  class alignas(64) Controller {
   public:
    Controller(const AddressMapping& mapping, const JedecTimings& timings, uint32_t index,
               const target::DramDesc& desc);
    // Serves this channel's bursts of `group`: done()[i] becomes access i's completion on this
    // channel (arrival when it has no burst here), counts() what its commands counted.
    void serve(const std::vector<Access>& group, Cycle arrival);
    const std::vector<Cycle>& done() const { return done_; }
    const DramStats& counts() const { return counts_; }

   private:
    // Returns the position in order_ of the stream whose oldest burst FR-FCFS takes next, and
    // stores that burst's plan on the channel's current state in `plan`. The caller has found
    // that the oldest queued burst is not a row hit at the column floor; if it is a hit
    // (`oldest_hit`), `plan` holds its plan on entry.
    std::size_t pick(uint64_t picks, bool oldest_hit, CommandPlan& plan) const;
    // Closed page: whether a queued burst wants r's row (in either direction), so the bank
    // stays open for it.
    bool row_wanted(const BurstRequest& r) const;
    // (row, bank index, direction) in one word, so joining a stream is one comparison.
    uint64_t stream_key(const BurstRequest& r) const {
      return (uint64_t{r.row} << 32) | (uint64_t{channel_.bank_index(r)} << 1) |
             (r.write ? 1u : 0u);
    }
    // Queues the burst in `slot` (filled in by the caller) behind its stream, or as a new one.
    void enqueue(uint8_t slot);
    // Takes the oldest burst of the stream at order_[position] out of the queue.
    void dequeue(std::size_t position);

    const AddressMapping& mapping_;  // the model's
    uint32_t index_;                 // the channel's number
    bool fcfs_;                      // dram.controller.scheduler: fcfs
    bool closed_page_;               // dram.controller.row_policy: closed
    JedecChannel channel_;
    std::vector<Cycle> done_;  // kept to reuse its storage
    DramStats counts_;         // of the last serve()
    Queued slots_[kQueueDepth];
    // The queue, grouped: streams_ holds the streams with a queued burst (and free entries,
    // listed in free_), and order_ their indices ordered by their oldest burst's age, so
    // order_[0]'s head is the oldest queued burst and a scan of order_ visits each stream's
    // oldest burst in age order, as a scan of the whole queue would. Reordering moves bytes.
    Stream streams_[kQueueDepth];
    uint8_t order_[kQueueDepth];
    uint8_t free_[kQueueDepth];
    std::size_t stream_count_ = 0;  // entries of order_ in use
    std::size_t free_count_ = 0;    // entries of free_ in use
    std::size_t queued_ = 0;        // bursts in the queue
  };

  void check_range(const std::vector<Access>& group) const;

  std::string backend_;
  AddressMapping mapping_;
  DramClock clock_;
  JedecTimings timings_;
  double peak_;
  uint64_t capacity_;
  std::vector<Controller> controllers_;
  std::unique_ptr<TaskPool> pool_;  // null: every channel on the caller's thread
  DramStats stats_;
};

}  // namespace s2::sim::dram
