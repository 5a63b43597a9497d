#pragma once
// JedecModel: the DramModel of JEDEC devices (DDR4, LPDDR4, HBM2 and a generic "jedec"): an
// address mapping (address_mapping.h), one JedecChannel per channel, and a controller per
// channel with a read queue and a write queue.
//
// The controller (one per channel; channels are independent, so complete() runs a group's
// channels on threads of their own when set_threads() allows and the group is large enough; the
// results do not change):
//  * Queues. dram.controller.read_queue and write_queue bursts (32 each by default), shared by
//    every submitted group's bursts. The bursts (in address order per access, accesses in
//    order, groups in arrival order) pass a front end that delays each group by
//    frontend_latency cycles and then feeds them into their queue in that order while it has
//    room: a burst whose queue is full holds back every burst behind it, as a trace-driven
//    controller's input does. A burst entering a slot freed by a column command is ready from
//    that command's cycle.
//  * Causality. Decisions are made in the order of their column commands. Before committing one,
//    every waiting burst that entered before its column command is admitted and the choice made
//    again, so no decision ignores a request that had arrived when it was taken.
//  * Write draining. Reads are served until the write queue holds write_high_watermark bursts
//    or no read is queued; then writes until at most write_low_watermark remain with a read
//    queued, or none. So writes go in batches and the bus turns around once per batch.
//  * A read whose burst address matches a queued write is answered from that write's data one
//    cycle after it enters, without a DRAM command (counted in reads_from_write_queue).
//  * Scheduling within the queue being served (dram.controller.scheduler: frfcfs, the default;
//    fcfs takes its oldest burst, skipping everything below). Each step picks, FR-FCFS in event
//    time:
//     1. the burst whose column command (RD/WR) can issue first: "first ready". A row hit is
//        ready for it now; a miss or conflict first needs its PRE/ACT, which issue as early as
//        their own windows allow, typically while other banks' bursts still use the bus;
//     2. on a tie, a burst that leaves every wanted row open before one that does not, then
//        the oldest. A row hit, a miss (its bank is closed) and a conflict on a bank whose open
//        row no queued burst of either queue wants leave them open; a conflict on a row that a
//        queued burst still wants closes it. A controller issues the PRE and ACT of the first
//        kind in idle command slots as soon as their windows allow (DRAMsim3's FR-FCFS does,
//        holding back only the precharge of a row with pending hits), so such a burst then
//        competes by age as a hit would, instead of waiting behind younger hits;
//     3. except that the oldest burst is taken as soon as kMaxBypass younger ones have been
//        served before it, so a stream of row hits cannot starve a conflict forever.
//    Ranking by the column slot rather than "any hit first" matters: with bank groups, the
//    next burst to the same group must wait tCCD_L, and a ready miss to another group fills
//    that gap. The picked burst's commands are committed to the channel (refreshes included),
//    and its data end is its completion. Cost: at most one command plan per distinct bank, row
//    and direction in the queue (see pick()), typically one or two: the oldest hit at the
//    column floor ends the search, and a miss or conflict is planned only if a lower bound of
//    its column slot could beat the best found; no per-cycle work. While the oldest burst is a
//    row hit at the floor and the other queue is empty, decisions take a shorter path
//    (Controller::run_hits()) with the same results.
// tests/simulator/dram_scheduler_test.cpp holds the scheduler to a plain restatement of these
// rules, and tests/simulator/dram_queue_test.cpp the queues, draining and forwarding.
//
// Row policy (dram.controller.row_policy): open, the default, leaves a row open after its
// access; closed precharges the bank right after a burst (auto-precharge, at the earliest its
// tRAS / tRTP / tWR allow) unless a burst still queued (in either queue) wants the same row.
// Address mapping: dram.controller.address_mapping (address_mapping.h).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "isa/common/task_pool.h"
#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/jedec_channel.h"

namespace s2::sim::dram {

class JedecModel final : public DramModel {
 public:
  static constexpr uint32_t kMaxBypass = 64;
  // complete() decides on the caller's thread alone when the groups submitted before its
  // group and not yet completed, with it, move fewer bursts than this (it decides at most
  // those): handing them to another thread would cost more than it saves.
  static constexpr uint64_t kParallelBursts = 256;

  JedecModel(const target::DramDesc& desc, std::string backend);
  ~JedecModel() override;
  JedecModel(const JedecModel&) = delete;  // its controllers point at its mapping and groups
  JedecModel& operator=(const JedecModel&) = delete;

  GroupId submit(const std::vector<Access>& group, Picoseconds arrival_ps) override;
  GroupResult complete(GroupId id) override;
  // Channels are independent, so a group's channels are decided in parallel on up to `threads`
  // threads (capped at the channel count); every result is the same for every thread count.
  void set_threads(unsigned threads) override;
  // Whether runs of row hits at the column floor are decided by the controller's short path
  // (Controller::run_hits(), the default) or each by the general one: the results are the same
  // (tests/simulator/dram_queue_test.cpp holds them to it), only the speed differs.
  void set_hit_runs(bool on) {
    for (Controller& c : controllers_)
      c.set_hit_runs(on);
  }
  const DramStats& stats() const override { return stats_; }
  double peak_bandwidth_bytes_per_s() const override { return peak_; }
  uint32_t burst_bytes() const override { return mapping_.burst_bytes(); }
  Picoseconds read_hit_latency_ps() const override {
    return clock_.to_ps(frontend_ + timings_.CL + timings_.burst);
  }
  std::string_view backend() const override { return backend_; }

 private:
  static constexpr std::size_t kDepth = target::DramControllerDesc::kMaxQueue;  // slots
  static constexpr uint8_t kNone = 0xFF;
  static_assert(kDepth < kNone, "queue slots and streams are numbered in a byte");

  // (row, bank index) in one word: a row of the channel, as a stream's key without its
  // direction (the bank index fits 31 bits: the loader allows at most 16 ranks of 16 bank
  // groups).
  static uint64_t row_key(uint32_t bank, uint32_t row) { return (uint64_t{row} << 31) | bank; }

  // A queued burst, in one of a queue's slots.
  struct Queued {
    BurstRequest request;
    uint64_t burst = 0;  // its burst address: a read finds a queued write by it
    uint64_t seq = 0;    // admission order into its queue: its age
    // Picks the queue had made before this burst entered, plus its position then. Its position
    // only drops when an older burst is picked, and every other pick since it entered took a
    // younger one, so once it is the oldest, picks - age_key is how many younger bursts were
    // served before it: the bypass count of FR-FCFS rule 3, kept without touching every older
    // entry on each pick.
    uint64_t age_key = 0;
    uint32_t access = 0;   // index into its group
    uint32_t pending = 0;  // its group's entry in the controller's pending_
    uint8_t next = kNone;  // the next younger queued burst of the same Stream
  };
  // The queued bursts of one (bank, row, direction), oldest first. pick() plans only a
  // stream's oldest burst (why that is exact: jedec_model.cpp, above pick()).
  // What pick() reads of every stream is here, so testing one costs no load of its slot.
  struct Stream {
    uint64_t key = 0;      // stream_key() of its bursts
    Cycle head_ready = 0;  // slots_[head].request.ready
    uint8_t head = kNone;  // oldest burst's slot
    uint8_t tail = kNone;  // youngest burst's slot
    uint8_t rank = 0;      // of its bursts
    uint32_t bank() const { return static_cast<uint32_t>(key >> 1) & 0x7fffffffu; }
    uint32_t row() const { return static_cast<uint32_t>(key >> 32); }
    bool write() const { return (key & 1) != 0; }
  };
  // Walks the bursts of one channel in a group, in address order per access, accesses in order.
  class BurstCursor;

  // One queue (the reads or the writes) of one channel: up to `capacity` bursts in slots, and
  // the same bursts grouped in streams. streams_ holds the streams with a queued burst (and free
  // entries, listed in free_streams_), and order_ their indices ordered by their oldest burst's
  // age, so order_[0]'s head is the oldest queued burst and a scan of order_ visits each
  // stream's oldest burst in age order, as a scan of the whole queue would.
  class BurstQueue {
   public:
    explicit BurstQueue(uint32_t capacity);
    std::size_t size() const { return queued_; }
    bool empty() const { return queued_ == 0; }
    bool full() const { return queued_ >= capacity_; }
    // The free slot the next burst takes (the one freed first), and when it was freed.
    uint8_t free_slot() const { return free_slots_[free_head_]; }
    Cycle freed_at(uint8_t slot) const { return freed_at_[slot]; }
    Queued& slot(uint8_t s) { return slots_[s]; }
    const Queued& slot(uint8_t s) const { return slots_[s]; }
    // No entry is ready before the one admitted before it (pick() relies on it).
    Cycle last_ready() const { return last_ready_; }
    // Queues the burst filled into free_slot() (its request, burst, access, pending).
    void admit(uint64_t stream_key);
    // The same, but the burst waits in a run's FIFO instead of joining its stream (see
    // Controller::run_hits()): younger than every queued burst, it is taken in admission order
    // while the run lasts; link_run() then puts the FIFO's bursts in their streams.
    void admit_to_run(uint64_t stream_key);
    bool run_empty() const { return run_count_ == 0; }
    // The oldest queued burst's slot: the first stream's head, or with every stream empty the
    // run FIFO's first (the caller knows the queue is not empty).
    uint8_t oldest_slot() const {
      return stream_count_ != 0 ? streams_[order_[0]].head : run_slots_[run_head_];
    }
    // Takes the oldest queued burst (oldest_slot()) out of the queue; its slot is free from
    // `freed_at`.
    void dequeue_oldest(Cycle freed_at) {
      if (stream_count_ != 0) {
        dequeue(0, freed_at);
      } else {
        release(run_slots_[run_head_], freed_at);
        run_head_ = (run_head_ + 1) % kDepth;
        --run_count_;
      }
    }
    // Puts the run FIFO's bursts into their streams, oldest first, as admit() would have.
    void link_run();
    // The slot of the oldest burst of the stream at order_[position].
    uint8_t head_slot(std::size_t position) const { return streams_[order_[position]].head; }
    const BurstRequest& oldest() const { return slots_[head_slot(0)].request; }
    // Takes the oldest burst of the stream at order_[position] out of the queue; its slot is
    // free from `freed_at` (and keeps its contents until reused).
    void dequeue(std::size_t position, Cycle freed_at);
    // Returns the position in order_ of the stream whose oldest burst FR-FCFS takes next, and
    // stores that burst's plan on `channel`'s current state in `plan`. The caller has found
    // that the oldest queued burst is not a row hit at the column floor; if it is a hit
    // (`oldest_hit`), `plan` holds its plan on entry. `other` is the channel's other queue
    // (whose bursts may want a row too).
    std::size_t pick(const JedecChannel& channel, const BurstQueue& other, bool oldest_hit,
                     CommandPlan& plan) const;
    // Whether a queued burst wants the row of row_key().
    bool wants_row(uint64_t row_key) const;
    // Whether a queued burst has this burst address. Most reads find no queued write of
    // theirs: a count of the queued bursts per low bits of the address answers those without
    // a scan.
    bool holds(uint64_t burst) const {
      return with_low_bits_[burst % kFilter] != 0 && holds_scan(burst);
    }

   private:
    static constexpr std::size_t kFilter = 256;  // buckets of with_low_bits_
    static_assert(kDepth < 256, "a bucket of with_low_bits_ counts up to a queue's bursts");
    bool holds_scan(uint64_t burst) const;
    // admit()'s and admit_to_run()'s part before joining a stream: takes free_slot() and
    // numbers the burst. Returns the slot.
    uint8_t take_slot();
    // Adds the burst in `slot` to the youngest end of its stream (`key`), or starts one.
    void link(uint8_t slot, uint64_t key);
    // dequeue()'s part after leaving the streams: the slot is free from `freed_at`.
    void release(uint8_t slot, Cycle freed_at);

    uint32_t capacity_;
    std::size_t queued_ = 0;
    uint8_t with_low_bits_[kFilter] = {};  // queued bursts per burst address % kFilter
    uint64_t picks_ = 0;                   // bursts taken out so far (FR-FCFS rule 3)
    uint64_t next_seq_ = 0;                // the next admitted burst's age
    Cycle last_ready_ = std::numeric_limits<Cycle>::min();
    Queued slots_[kDepth];
    Cycle freed_at_[kDepth];
    uint8_t free_slots_[kDepth];  // ring, oldest freed first
    std::size_t free_head_ = 0;
    std::size_t free_count_ = 0;
    Stream streams_[kDepth];
    uint8_t order_[kDepth];
    uint64_t order_seq_[kDepth];  // the age (seq) of order_[i]'s oldest burst: dequeue()'s scan
    uint8_t free_streams_[kDepth];
    std::size_t stream_count_ = 0;  // entries of order_ in use
    std::size_t free_stream_count_ = 0;
    // The run FIFO (admit_to_run()): slots, oldest first, and their stream keys.
    uint8_t run_slots_[kDepth];
    uint64_t run_keys_[kDepth];
    std::size_t run_head_ = 0;
    std::size_t run_count_ = 0;
  };

  // Whether a burst queued in `a` or `b` (a channel's two queues) wants the row of row_key():
  // a row hit still to come, which closing the row would turn into a conflict.
  static bool wanted(const BurstQueue& a, const BurstQueue& b, uint64_t row_key) {
    return a.wants_row(row_key) || b.wants_row(row_key);
  }

  // One channel's controller: its bank state, its two queues, the groups with bursts on this
  // channel still to decide, and what its commands counted. Controllers share nothing but the
  // model's read-only address mapping and groups, so several run at once.
  class alignas(64) Controller {
   public:
    Controller(const AddressMapping& mapping, const JedecTimings& timings, uint32_t index,
               const target::DramDesc& desc);
    Controller(Controller&&) noexcept;  // out of line: Pending is defined in jedec_model.cpp
    ~Controller();
    // Registers group `id` (its accesses stay where they are until take()), arriving at
    // `arrival` and entering the queues from `entry`.
    void add(GroupId id, const std::vector<Access>& group, Cycle arrival, Cycle entry);
    // Decides until every burst of group `id` on this channel is decided.
    void run(GroupId id);
    // Raises done[i] to access i's completion on this channel and forgets the group.
    void take(GroupId id, std::vector<Cycle>& done);
    const DramStats& counts() const { return counts_; }  // over the controller's lifetime
    void set_hit_runs(bool on) { hit_runs_ = on; }
    // Bursts decided so far: issued, or answered from the write queue.
    uint64_t decided_bursts() const {
      return counts_.read_bursts + counts_.write_bursts + counts_.reads_from_write_queue;
    }

   private:
    struct Pending;
    // Admits bursts from the front end, in arrival order, while the next one entered at or
    // before `limit` and its queue has room. Returns whether it admitted any.
    bool admit(Cycle limit);
    // Admits the next burst of pending_[index] into `queue` (its direction's, not full): into
    // its stream, or with kToRun into the queue's run FIFO (run_hits()).
    template <bool kToRun>
    void admit_burst(uint32_t index, BurstQueue& queue);
    // The decisions run() would make while the oldest burst of `queue` (the one served, the
    // other queue empty) is a row hit at the column floor, each taken without the general
    // machinery; bursts admitted meanwhile wait in the queue's run FIFO. Stops at the first
    // decision that is not such a hit (or would admit a burst for the other queue, or finds
    // the queue empty), with nothing of it done but same-queue admissions, or once group
    // `target` is decided; the FIFO is then linked into the streams. Returns whether it
    // decided any burst. Why the results are run()'s: jedec_model.cpp.
    bool run_hits(BurstQueue& queue, uint32_t target);
    // Write draining: the queue to serve next (at least one is non-empty).
    BurstQueue& serving();
    // Closed page: whether a queued burst wants r's row (in either direction), so the bank
    // stays open for it.
    bool row_wanted(const BurstRequest& r) const {
      return wanted(reads_, writes_, row_key(channel_.bank_index(r), r.row));
    }
    // (row, bank index, direction) in one word, so joining a stream is one comparison.
    uint64_t stream_key(const BurstRequest& r) const {
      return row_key(channel_.bank_index(r), r.row) << 1 | (r.write ? 1u : 0u);
    }

    const AddressMapping& mapping_;  // the model's
    uint32_t index_;                 // the channel's number
    bool fcfs_;                      // dram.controller.scheduler: fcfs
    bool closed_page_;               // dram.controller.row_policy: closed
    bool hit_runs_ = true;           // JedecModel::set_hit_runs()
    uint32_t high_;                  // write_high_watermark
    uint32_t low_;                   // write_low_watermark
    bool draining_ = false;          // serving writes
    JedecChannel channel_;
    DramStats counts_;
    BurstQueue reads_;
    BurstQueue writes_;
    std::vector<Pending> pending_;  // groups with bursts here; entries reused once taken
    std::vector<uint32_t> unused_;  // entries of pending_ not in use
    std::unordered_map<GroupId, uint32_t> index_of_;  // live groups' entries
    // The groups with a burst still outside the queues, in arrival order: the front end.
    std::deque<uint32_t> arrivals_;
    // After admit(): the entry of the front end's first group if that group had not entered by
    // the limit (it and every group behind it wait for time, not for room); otherwise never.
    Cycle later_entry_ = std::numeric_limits<Cycle>::max();
  };

  struct Group {
    std::vector<Access> accesses;
    Picoseconds arrival_ps = 0;
    uint64_t bursts = 0;  // counted only with a pool
  };

  void check_range(const std::vector<Access>& group) const;

  std::string backend_;
  AddressMapping mapping_;
  DramClock clock_;
  JedecTimings timings_;
  Cycle frontend_;
  double peak_;
  uint64_t capacity_;
  std::vector<Controller> controllers_;
  std::map<GroupId, Group> groups_;  // submitted, not yet completed (nodes never move)
  GroupId next_id_ = 0;
  uint64_t issued_ = 0;             // bursts on the bus counted into stats_ so far
  uint64_t submitted_bursts_ = 0;   // over every group submitted while a pool was set
  std::unique_ptr<TaskPool> pool_;  // null: every channel on the caller's thread
  DramStats stats_;
};

}  // namespace s2::sim::dram
