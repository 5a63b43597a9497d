#include "simulator/dram/jedec_model.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "isa/common/errors.h"

namespace s2::sim::dram {

// Bursts of `channel` come in runs of L = run_length() consecutive bursts, one run per channel
// in each block of `channels` runs (address_mapping.h): without a hash, burst b is in the
// channel's run when (b / L) % channels == channel. The cursor walks each access's bursts of
// that channel in address order: with L == 1 (the channel the lowest field, as by default) and
// no hash it steps by `channels`; otherwise it steps by one inside a run and jumps to the
// channel's next run (AddressMapping::first_in_channel) at a run's end.
class JedecModel::BurstCursor {
 public:
  BurstCursor(const AddressMapping& mapping, const std::vector<Access>& group, uint32_t channel,
              const BankIndexer& indexer)
      : mapping_(&mapping),
        group_(&group),
        channel_(channel),
        indexer_(indexer),
        run_(mapping.run_length()),
        by_channels_(run_ == 1 && !mapping.hashed()),
        size_(group.size()) {
    seek(0);
  }

  bool done() const { return access_ >= size_; }
  // The next burst's direction and burst address. Precondition: !done().
  bool next_is_write() const { return write_; }
  std::size_t access() const { return access_; }
  uint64_t next_burst() const { return burst_; }

  // Writes the next burst into `q` (in place: a Queued built on the stack and copied costs a
  // store-forwarding stall on the hot path). Precondition: !done().
  [[gnu::always_inline]] void next(Cycle ready, Queued& q) {
    const DramAddress& a = address_;
    q.request.rank = a.rank;
    q.request.bank_group = a.bank_group;
    q.request.row = a.row;
    q.request.flat_bank = indexer_(a.rank, a.bank_group, a.bank);
    q.request.write = write_;
    q.request.ready = ready;
    q.access = static_cast<uint32_t>(access_);
    q.burst = burst_;
    if (by_channels_) {
      burst_ += mapping_->channels();
      if (burst_ > last_) {
        seek(access_ + 1);
      } else {
        mapping_->step_in_channel(address_);  // == decode_burst(burst_), without the divisions
      }
      return;
    }
    step_in_runs();
  }

 private:
  // next() for a channel in runs longer than one burst, or under a hash: out of line, so that
  // the default mapping's path above stays small enough to inline into the scheduler's loop.
  [[gnu::noinline]] void step_in_runs() {
    ++burst_;
    if (burst_ % run_ == 0) burst_ = mapping_->first_in_channel(channel_, burst_);
    if (burst_ > last_) {
      seek(access_ + 1);
    } else if (burst_ % run_ == 0 || mapping_->hashed()) {
      address_ = mapping_->decode_burst(burst_);
    } else {
      mapping_->step_in_run(address_);
    }
  }

  // Moves to the first burst of this channel in access `index` or a later one.
  void seek(std::size_t index) {
    for (access_ = index; access_ < size_; ++access_) {
      const Access& a = (*group_)[access_];
      if (a.bytes == 0) continue;
      last_ = mapping_->burst_index(a.address + a.bytes - 1);
      burst_ = mapping_->first_in_channel(channel_, mapping_->burst_index(a.address));
      if (burst_ <= last_) {
        address_ = mapping_->decode_burst(burst_);
        write_ = a.kind == AccessKind::Write;
        return;
      }
    }
  }

  const AddressMapping* mapping_;
  const std::vector<Access>* group_;
  uint32_t channel_;
  BankIndexer indexer_;  // the channel's
  uint64_t run_;
  bool by_channels_;    // run_ == 1 without a hash: the next burst is `channels` further
  std::size_t size_;    // group_->size()
  bool write_ = false;  // (*group_)[access_] is a write
  std::size_t access_ = 0;
  uint64_t burst_ = 0;
  uint64_t last_ = 0;
  DramAddress address_;  // decode_burst(burst_) while !done()
};

JedecModel::JedecModel(const target::DramDesc& desc, std::string backend)
    : backend_(std::move(backend)),
      mapping_(desc),
      clock_(desc.clock_mhz),
      timings_(JedecTimings::from(desc)),
      frontend_(desc.controller.frontend_latency),
      peak_(desc.peak_bandwidth_bytes_per_s()),
      capacity_(desc.capacity_bytes) {
  controllers_.reserve(desc.channels);
  for (uint32_t c = 0; c < desc.channels; ++c)
    controllers_.emplace_back(mapping_, timings_, c, desc);
}

JedecModel::~JedecModel() = default;

void JedecModel::set_threads(unsigned threads) {
  const unsigned n =
      std::min<unsigned>(std::max(threads, 1u), static_cast<unsigned>(controllers_.size()));
  if (n == (pool_ ? pool_->threads() : 1u)) return;
  pool_ = n > 1 ? std::make_unique<TaskPool>(n) : nullptr;
  // The counts complete() weighs the work by (kept only with a pool), for groups already here.
  submitted_bursts_ = 0;
  for (const Controller& c : controllers_)
    submitted_bursts_ += c.decided_bursts();
  for (auto& [id, group] : groups_) {
    group.bursts = 0;
    for (const Access& a : group.accesses)
      group.bursts += bursts_of(a, mapping_.burst_bytes());
    submitted_bursts_ += group.bursts;
  }
}

void JedecModel::check_range(const std::vector<Access>& group) const {
  for (std::size_t i = 0; i < group.size(); ++i) {
    const Access& a = group[i];
    if (a.address > capacity_ || a.bytes > capacity_ - a.address) {
      throw UserError("DRAM access " + std::to_string(i) + " of a group: bytes [" +
                      std::to_string(a.address) + ", " + std::to_string(a.address) + " + " +
                      std::to_string(a.bytes) + ") reach past the DRAM capacity of " +
                      std::to_string(capacity_) +
                      " bytes; give the target more DRAM (dram.capacity) or compile for it");
    }
  }
}

// ---- BurstQueue ----------------------------------------------------------------------------

JedecModel::BurstQueue::BurstQueue(uint32_t capacity) : capacity_(capacity) {
  S2_CHECK(capacity >= 1 && capacity <= kDepth,
           "DRAM controller: a queue of " + std::to_string(capacity) +
               " bursts (the loader allows 1.." + std::to_string(kDepth) + ")");
  for (std::size_t i = 0; i < kDepth; ++i) {
    free_slots_[i] = static_cast<uint8_t>(i);
    freed_at_[i] = std::numeric_limits<Cycle>::min();
    free_streams_[i] = static_cast<uint8_t>(kDepth - 1 - i);
  }
  free_count_ = capacity;  // the slots in use are the first `capacity`
  free_stream_count_ = kDepth;
}

[[gnu::always_inline]] inline uint8_t JedecModel::BurstQueue::take_slot() {
  const uint8_t slot = free_slots_[free_head_];
  free_head_ = (free_head_ + 1) % kDepth;
  --free_count_;
  Queued& q = slots_[slot];
  q.next = kNone;
  q.seq = next_seq_++;
  q.age_key = picks_ + queued_;
  last_ready_ = q.request.ready;
  ++queued_;
  ++with_low_bits_[q.burst % kFilter];
  return slot;
}

[[gnu::always_inline]] inline void JedecModel::BurstQueue::link(uint8_t slot, uint64_t key) {
  // At most one stream per (bank, row, direction). Searched youngest head first: in a
  // sequential stream the burst entering is a queue's length behind the one that just left,
  // often in the same bank group, and that stream has just moved to the back.
  for (std::size_t i = stream_count_; i-- > 0;) {
    Stream& s = streams_[order_[i]];
    if (s.key == key) {
      slots_[s.tail].next = slot;
      s.tail = slot;
      return;
    }
  }
  // The youngest burst: a new stream goes last in age order.
  const Queued& q = slots_[slot];
  const uint8_t id = free_streams_[--free_stream_count_];
  Stream& s = streams_[id];
  s.key = key;
  s.head_ready = q.request.ready;
  s.head = slot;
  s.tail = slot;
  s.rank = static_cast<uint8_t>(q.request.rank);
  order_seq_[stream_count_] = q.seq;
  order_[stream_count_++] = id;
}

[[gnu::always_inline]] inline void JedecModel::BurstQueue::admit(uint64_t key) {
  link(take_slot(), key);
}

[[gnu::always_inline]] inline void JedecModel::BurstQueue::admit_to_run(uint64_t key) {
  const uint8_t slot = take_slot();
  const std::size_t at = (run_head_ + run_count_++) % kDepth;
  run_slots_[at] = slot;
  run_keys_[at] = key;
}

void JedecModel::BurstQueue::link_run() {
  for (; run_count_ != 0; --run_count_) {
    link(run_slots_[run_head_], run_keys_[run_head_]);
    run_head_ = (run_head_ + 1) % kDepth;
  }
}

[[gnu::always_inline]] inline void JedecModel::BurstQueue::release(uint8_t slot, Cycle freed_at) {
  --queued_;
  ++picks_;
  freed_at_[slot] = freed_at;
  --with_low_bits_[slots_[slot].burst % kFilter];
  free_slots_[(free_head_ + free_count_) % kDepth] = slot;
  ++free_count_;
}

void JedecModel::BurstQueue::dequeue(std::size_t position, Cycle freed_at) {
  const uint8_t id = order_[position];
  Stream& s = streams_[id];
  const uint8_t slot = s.head;
  release(slot, freed_at);
  const uint8_t next = slots_[slot].next;
  if (next == kNone) {  // the stream is empty: close the gap
    free_streams_[free_stream_count_++] = id;
    --stream_count_;
    for (std::size_t i = position; i < stream_count_; ++i) {
      order_[i] = order_[i + 1];
      order_seq_[i] = order_seq_[i + 1];
    }
    return;
  }
  // The stream's next burst is younger: move the stream back to its age rank.
  s.head = next;
  s.head_ready = slots_[next].request.ready;
  const uint64_t seq = slots_[next].seq;
  std::size_t i = position;
  for (; i + 1 < stream_count_ && order_seq_[i + 1] < seq; ++i) {
    order_[i] = order_[i + 1];
    order_seq_[i] = order_seq_[i + 1];
  }
  order_[i] = id;
  order_seq_[i] = seq;
}

bool JedecModel::BurstQueue::wants_row(uint64_t row_key) const {
  for (std::size_t i = 0; i < stream_count_; ++i) {
    if (streams_[order_[i]].key >> 1 == row_key) return true;
  }
  return false;
}

bool JedecModel::BurstQueue::holds_scan(uint64_t burst) const {
  for (std::size_t i = 0; i < stream_count_; ++i) {
    for (uint8_t slot = streams_[order_[i]].head; slot != kNone; slot = slots_[slot].next) {
      if (slots_[slot].burst == burst) return true;
    }
  }
  return false;
}

// Planning one burst per stream. In a queue, `ready` never decreases from older to younger
// entries: the initial fill is at the arrival, and each later entry is enqueued at
// max(entry, the freed slot's column, the previous entry's ready), and the channel's column
// commands are issued in increasing time (column >= last column + tCCD_S). plan() depends on a
// request only through its bank, row, direction and `ready`, and its column slot never decreases as
// `ready` grows (a max of terms each nondecreasing in it), with the same outcome. So an entry i
// with the same bank, row and direction as an older entry j < i has column_i >= column_j and hit_i
// == hit_j, and cannot change the result of a scan of every entry in age order:
//  * after j, best_column <= column_j, and best_column only decreases; so column_i <
//    best_column is false, and column_i == best_column forces column_j == best_column, at
//    which point best_hit >= hit_j (j set it, or it was already a hit at that slot) and best_hit
//    only turns false -> true while best_column holds; so the tie rule does not take i either;
//  * if i would end the scan (a hit at the column floor), j would have ended it first.
// The same holds by induction when several such entries are dropped. So scanning each stream's
// oldest burst, in the age order of those bursts (the order of streams_), chooses exactly what
// planning every entry would; a stream over a few bank groups has a handful of streams among 32
// entries. The chosen burst is its stream's oldest, so bursts of a stream leave in order.
std::size_t JedecModel::BurstQueue::pick(const JedecChannel& channel, const BurstQueue& other,
                                         bool oldest_hit, CommandPlan& plan) const {
  if (picks_ - slots_[streams_[order_[0]].head].age_key >= kMaxBypass) {
    channel.plan_into(slots_[streams_[order_[0]].head].request, plan);
    return 0;
  }
  const Cycle floor = channel.column_floor();
  // Rule 2's classes: a row hit, a miss (its bank is closed) and a conflict on a bank whose open
  // row no queued burst (in either queue) wants keep every wanted row open; a conflict on a
  // wanted row does not. Asked only of a miss or conflict that could win, lazily.
  const auto keeps_wanted_rows = [&](const Stream& s) {
    return !channel.bank_open(s.bank()) ||
           !wanted(*this, other, row_key(s.bank(), channel.open_row(s.bank())));
  };
  // First pass: the scan below stops at the first burst at the column floor that keeps the
  // wanted rows open (nothing can come earlier, and among those the oldest wins), so look for it
  // in age order, planning a hit by its column alone and a miss or conflict only when the lower
  // bound of its column reaches the floor. Finding it decides the pick exactly as the full scan
  // would. The hits' column slots are kept for the full scan (the channel state does not change
  // in between). The oldest burst, at position 0, was evaluated by the caller when a hit.
  Cycle hit_column[kDepth];
  bool is_hit[kDepth];
  is_hit[0] = oldest_hit;
  hit_column[0] = plan.column;
  std::size_t hits_end = oldest_hit ? 1 : 0;  // one past the youngest hit's position
  // Bit r: a miss or conflict of rank r had a bound past the floor, and so would every younger
  // one of that rank (the bound grows with the ready time, which grows with age; see below).
  uint32_t past_floor = 0;
  for (std::size_t i = 0; i < stream_count_; ++i) {
    const Stream& s = streams_[order_[i]];
    if (i > 0) is_hit[i] = channel.outcome_at(s.bank(), s.row()) == RowOutcome::Hit;
    if (!is_hit[i]) {
      const uint32_t rank_bit = 1u << s.rank;
      if (past_floor & rank_bit) continue;
      // The bound is never below the floor: equal means it may reach it.
      if (channel.activate_column_bound(s.rank, s.head_ready) > floor) {
        past_floor |= rank_bit;
        continue;
      }
      CommandPlan p;
      channel.plan_into(slots_[s.head].request, p);
      if (p.column > floor || !keeps_wanted_rows(s)) continue;  // the plan is the cheaper test
      plan = p;
      return i;
    }
    hits_end = i + 1;
    if (i > 0) hit_column[i] = channel.hit_column_at(s.bank(), s.write(), s.head_ready);
    if (hit_column[i] <= floor) {
      channel.hit_plan_into(slots_[s.head].request, hit_column[i], plan);
      return i;
    }
  }
  // Full scan, in age order: strictly earlier column slot wins; on a tie a burst that keeps the
  // wanted rows open beats one that does not, and otherwise the older request (lower index)
  // keeps its place. So a miss or conflict whose column cannot come before the best so far
  // cannot win, whatever its exact plan, unless it ties and only it keeps the wanted rows open:
  // it is passed over on a lower bound of its column. That bound depends on the stream only
  // through its rank and its head's ready time, which never decreases along the age order (see
  // above), and best_column only decreases: so once one miss or conflict of a rank is passed
  // over because its bound is later than the best, or ties a best that keeps the rows open,
  // every younger one of that rank would be too. The rank is then settled, and once every rank
  // is, only the hits are left to compare.
  std::size_t best = 0;
  Cycle best_column = std::numeric_limits<Cycle>::max();
  bool best_keeps = false;  // the best so far keeps the wanted rows open
  bool best_hit = false;
  CommandPlan best_miss;  // the plan of the best so far when it is a miss or conflict
  uint32_t settled = 0;   // bit r: rank r's misses and conflicts cannot win
  const uint32_t all_ranks = channel.all_ranks_mask();
  for (std::size_t i = 0; i < stream_count_; ++i) {
    Cycle column = 0;
    bool keeps = true;
    if (is_hit[i]) {
      column = hit_column[i];
    } else {
      const Stream& s = streams_[order_[i]];
      const uint32_t rank_bit = 1u << s.rank;
      if (settled & rank_bit) continue;
      const Cycle bound = channel.activate_column_bound(s.rank, s.head_ready);
      if (bound > best_column || (bound == best_column && best_keeps)) {
        settled |= rank_bit;
        if (settled == all_ranks && i >= hits_end) break;
        continue;
      }
      keeps = keeps_wanted_rows(s);
      if (bound == best_column && !keeps) continue;  // loses the tie, whatever its plan
      channel.plan_into(slots_[s.head].request, plan);
      column = plan.column;
    }
    if (column < best_column || (column == best_column && keeps && !best_keeps)) {
      best = i;
      best_column = column;
      best_keeps = keeps;
      best_hit = is_hit[i];
      if (!best_hit) best_miss = plan;
    }
  }
  if (best_hit) {
    channel.hit_plan_into(slots_[streams_[order_[best]].head].request, best_column, plan);
  } else {
    plan = best_miss;
  }
  return best;
}

// ---- Controller ----------------------------------------------------------------------------

// A group with bursts on this channel: where its cursor stands, how many of its bursts are in
// a queue, and its accesses' completions so far.
struct JedecModel::Controller::Pending {
  GroupId id = 0;
  bool live = false;
  bool entered = false;  // a burst of it has entered a queue
  Cycle entry = 0;
  BurstCursor cursor;
  uint32_t in_queue = 0;
  std::vector<Cycle> done;
  bool decided() const { return cursor.done() && in_queue == 0; }
};

JedecModel::Controller::Controller(const AddressMapping& mapping, const JedecTimings& timings,
                                   uint32_t index, const target::DramDesc& desc)
    : mapping_(mapping),
      index_(index),
      fcfs_(desc.controller.scheduler == target::DramScheduler::Fcfs),
      closed_page_(desc.controller.row_policy == target::RowPolicy::Closed),
      high_(desc.controller.write_high_watermark),
      low_(desc.controller.write_low_watermark),
      channel_(desc, timings),
      reads_(desc.controller.read_queue),
      writes_(desc.controller.write_queue) {}

JedecModel::Controller::Controller(Controller&&) noexcept = default;
JedecModel::Controller::~Controller() = default;

void JedecModel::Controller::add(GroupId id, const std::vector<Access>& group, Cycle arrival,
                                 Cycle entry) {
  BurstCursor cursor(mapping_, group, index_, channel_.bank_indexer());
  if (cursor.done()) return;  // nothing on this channel
  uint32_t i = 0;
  if (unused_.empty()) {
    i = static_cast<uint32_t>(pending_.size());
    pending_.push_back(Pending{0, false, false, 0, cursor, 0, {}});
  } else {
    i = unused_.back();
    unused_.pop_back();
  }
  Pending& p = pending_[i];
  p.id = id;
  p.live = true;
  p.entered = false;
  p.entry = entry;
  p.cursor = cursor;
  p.in_queue = 0;
  p.done.assign(group.size(), arrival);
  index_of_.emplace(id, i);
  // The front end takes groups in the order they enter (a DMA transfer of host memory reaches
  // the DRAM a link latency after it was handed over, so a later one may enter first), never
  // ahead of one that has begun to enter.
  auto at = arrivals_.end();
  while (at != arrivals_.begin() && pending_[*(at - 1)].entry > entry &&
         !pending_[*(at - 1)].entered)
    --at;
  arrivals_.insert(at, i);
}

template <bool kToRun>
[[gnu::always_inline]] inline void JedecModel::Controller::admit_burst(uint32_t index,
                                                                       BurstQueue& queue) {
  Pending& p = pending_[index];
  p.entered = true;
  const bool write = p.cursor.next_is_write();
  if (!write && !writes_.empty() && writes_.holds(p.cursor.next_burst())) {
    // Answered from the write queue: the read takes no slot and no command.
    Queued scratch;
    p.cursor.next(std::max(p.entry, queue.last_ready()), scratch);
    p.done[scratch.access] = std::max(p.done[scratch.access], scratch.request.ready + 1);
    ++counts_.reads_from_write_queue;
    return;
  }
  const uint8_t slot = queue.free_slot();
  Queued& q = queue.slot(slot);
  p.cursor.next(std::max({p.entry, queue.freed_at(slot), queue.last_ready()}), q);
  q.pending = index;
  ++p.in_queue;
  if constexpr (kToRun) {
    queue.admit_to_run(stream_key(q.request));
  } else {
    queue.admit(stream_key(q.request));
  }
}

[[gnu::always_inline]] inline bool JedecModel::Controller::admit(Cycle limit) {
  bool any = false;
  later_entry_ = std::numeric_limits<Cycle>::max();
  while (!arrivals_.empty()) {
    const uint32_t i = arrivals_.front();
    Pending& p = pending_[i];
    if (p.entry > limit) {
      later_entry_ = p.entry;
      break;
    }
    BurstQueue& queue = p.cursor.next_is_write() ? writes_ : reads_;
    if (queue.full()) break;  // everything behind waits too
    admit_burst<false>(i, queue);
    any = true;
    if (p.cursor.done()) arrivals_.pop_front();
  }
  return any;
}

[[gnu::always_inline]] inline JedecModel::BurstQueue& JedecModel::Controller::serving() {
  if (draining_) {
    if (writes_.empty() || (writes_.size() <= low_ && !reads_.empty())) draining_ = false;
  } else if (!writes_.empty() && (writes_.size() >= high_ || reads_.empty())) {
    draining_ = true;
  }
  return draining_ ? writes_ : reads_;
}

// run_hits() makes run()'s decisions while each is its common case, the oldest burst of the
// queue served a row hit at the column floor, at a fraction of the cost: no stream is joined
// or reordered and none of run()'s general steps is taken. It starts in that case with the
// other queue empty, the scheduler FR-FCFS and the row policy open. Why each decision is
// run()'s:
//  * run() takes the oldest burst when it is a row hit at the column floor: no column slot is
//    earlier, and of the bursts at the floor the oldest wins. This loop checks exactly that
//    (on the channel's current state, as run() does) and stops otherwise.
//  * Before a decision, run() admits every burst that entered before its column command (those
//    by the last column at the top of its loop, then those by column - 1, deciding again). An
//    admitted burst is younger than every queued one, so while it joins the same queue the
//    decision stays the same, and the other queue stays empty, so serving() keeps this one
//    (the write queue is empty, so no read is answered from it). This loop admits them all
//    before issuing and stops, nothing of that decision done, at a burst for the other queue.
//  * A burst admitted here waits in the queue's run FIFO instead of joining its stream: nothing
//    here reads the streams but through the oldest burst, and every FIFO burst is younger than
//    every stream's. link_run() puts them in their streams, oldest first, before run() goes on,
//    so the streams are then what admit() would have made.
//  * Slots, ages, ready times, the order of the free slots and every count are kept as admit()
//    and dequeue() keep them; issue() is run()'s, refreshes included.
// A closed-page controller reads the streams after every burst (row_wanted()), so it never
// runs here. Returns whether it decided any burst.
bool JedecModel::Controller::run_hits(BurstQueue& queue, uint32_t target) {
  JedecChannel& channel = channel_;
  const bool write = &queue == &writes_;
  CommandPlan planned;
  bool decided = false;
  while (!queue.empty()) {
    const Queued& q = queue.slot(queue.oldest_slot());
    Cycle column = 0;
    if (!channel.hit_at_floor(q.request, column)) break;
    bool other = false;  // the next burst to enter is for the other queue
    while (!arrivals_.empty()) {
      const uint32_t i = arrivals_.front();
      Pending& p = pending_[i];
      if (p.entry >= column) break;
      if (p.cursor.next_is_write() != write) {
        other = true;
        break;
      }
      if (queue.full()) break;
      admit_burst<true>(i, queue);  // never answered from the write queue: it is empty or
                                    // the burst is a write
      if (p.cursor.done()) arrivals_.pop_front();
    }
    if (other) break;
    channel.hit_plan_into(q.request, column, planned);
    channel.issue(q.request, planned, counts_);
    Pending& owner = pending_[q.pending];
    owner.done[q.access] = std::max(owner.done[q.access], planned.data_end);
    --owner.in_queue;
    queue.dequeue_oldest(planned.column);  // leaves the slot's contents until reused
    decided = true;
    if (pending_[target].decided()) break;
  }
  queue.link_run();
  return decided;
}

void JedecModel::Controller::run(GroupId id) {
  const auto found = index_of_.find(id);
  if (found == index_of_.end()) return;  // no burst on this channel
  const uint32_t target_index = found->second;
  JedecChannel& channel = channel_;
  CommandPlan planned;
  while (!pending_[target_index].decided()) {
    // Every later column command comes after the last one, so a burst that entered by then is
    // in the queue before any of them is chosen.
    admit(channel.last_column());
    if (reads_.empty() && writes_.empty()) {
      // Nothing queued, so nothing waits for room: the target's bursts are still to come.
      S2_CHECK(!arrivals_.empty(),
               "DRAM controller: a group with bursts to decide and none queued");
      admit(later_entry_);
      continue;
    }
    BurstQueue& queue = serving();
    const BurstQueue& other = &queue == &reads_ ? writes_ : reads_;
    // The common case, inline: the oldest burst is a row hit at the column floor. pick() would
    // take it whatever the bypass count (rule 3 takes it too), so skip the call. FCFS always
    // takes the oldest.
    const BurstRequest& oldest = queue.oldest();
    std::size_t chosen = 0;
    if (fcfs_) {
      channel.plan_into(oldest, planned);
    } else if (channel.outcome(oldest) != RowOutcome::Hit) {
      chosen = queue.pick(channel, other, false, planned);
    } else {
      const Cycle column = channel.hit_column(oldest);
      channel.hit_plan_into(oldest, column, planned);
      if (column > channel.column_floor()) {
        chosen = queue.pick(channel, other, true, planned);
      } else if (hit_runs_ && !closed_page_ && other.empty() && run_hits(queue, target_index)) {
        continue;  // decided the hits at the floor in a row; `planned` is stale
      }
    }
    // A burst that entered before this column command competes for it: admit and choose again.
    // (Bursts that entered by the last column command were admitted above if there was room,
    // and no room has been made since.)
    if (later_entry_ < planned.column && admit(planned.column - 1)) continue;
    const uint8_t slot = queue.head_slot(chosen);
    const Queued& q = queue.slot(slot);
    channel.issue(q.request, planned, counts_);
    Pending& owner = pending_[q.pending];
    owner.done[q.access] = std::max(owner.done[q.access], planned.data_end);
    --owner.in_queue;
    queue.dequeue(chosen, planned.column);  // leaves the slot's contents until reused
    if (closed_page_ && !row_wanted(q.request)) channel.close_row(q.request, counts_);
  }
}

void JedecModel::Controller::take(GroupId id, std::vector<Cycle>& done) {
  const auto found = index_of_.find(id);
  if (found == index_of_.end()) return;  // no burst on this channel
  Pending& p = pending_[found->second];
  S2_CHECK(p.decided(), "DRAM controller: a group taken before all its bursts were decided");
  for (std::size_t i = 0; i < done.size(); ++i)
    done[i] = std::max(done[i], p.done[i]);
  p.live = false;
  unused_.push_back(found->second);
  index_of_.erase(found);
}

// ---- JedecModel ----------------------------------------------------------------------------

GroupId JedecModel::submit(const std::vector<Access>& accesses, Picoseconds arrival_ps) {
  check_range(accesses);
  const GroupId id = next_id_++;
  Group& group = groups_[id];
  group.accesses = accesses;
  group.arrival_ps = arrival_ps;
  if (pool_) {
    for (const Access& a : accesses)
      group.bursts += bursts_of(a, mapping_.burst_bytes());
    submitted_bursts_ += group.bursts;
  }
  const Cycle arrival = clock_.to_cycle(arrival_ps);
  for (Controller& c : controllers_)
    c.add(id, group.accesses, arrival, arrival + frontend_);
  return id;
}

GroupResult JedecModel::complete(GroupId id) {
  const auto found = groups_.find(id);
  S2_CHECK(found != groups_.end(), "DRAM model: complete() of a group not submitted or taken");
  const Group& group = found->second;
  const std::vector<Access>& accesses = group.accesses;
  const Picoseconds arrival_ps = group.arrival_ps;
  const Cycle arrival = clock_.to_cycle(arrival_ps);
  // Only a pool needs the sizes (to decide whether handing the work over pays). run() may
  // decide the bursts of every earlier group still here (groups_ is in id order) besides this
  // one's; some may be decided already, so this can overestimate.
  // Also bounded by the bursts submitted and not yet decided on any channel.
  const auto large = [&] {
    uint64_t decided = 0;
    for (const Controller& c : controllers_)
      decided += c.decided_bursts();
    if (submitted_bursts_ < decided + kParallelBursts) return false;
    uint64_t bursts = 0;
    for (auto it = groups_.begin(); bursts < kParallelBursts; ++it) {
      bursts += it->second.bursts;
      if (it == found) break;
    }
    return bursts >= kParallelBursts;
  };
  const auto run_channel = [&](std::size_t c) { controllers_[c].run(id); };
  if (pool_ && large()) {
    pool_->run(controllers_.size(), run_channel);
  } else {
    for (std::size_t c = 0; c < controllers_.size(); ++c)
      run_channel(c);
  }

  std::vector<Cycle> done(accesses.size(), arrival);
  for (Controller& c : controllers_)
    c.take(id, done);
  GroupResult result;
  result.done_ps = arrival_ps;
  result.access_done_ps.reserve(accesses.size());
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    const Picoseconds t = accesses[i].bytes == 0 ? arrival_ps : clock_.to_ps(done[i]);
    result.access_done_ps.push_back(t);
    result.done_ps = std::max(result.done_ps, t);
    (accesses[i].kind == AccessKind::Read ? stats_.bytes_read : stats_.bytes_written) +=
        accesses[i].bytes;
  }
  groups_.erase(found);

  // The command counts are the controllers' own, cumulative; the bus time grows by the bursts
  // issued since the last call.
  DramStats next;
  for (const Controller& c : controllers_) {
    const DramStats& n = c.counts();
    next.read_bursts += n.read_bursts;
    next.write_bursts += n.write_bursts;
    next.row_hits += n.row_hits;
    next.row_misses += n.row_misses;
    next.row_conflicts += n.row_conflicts;
    next.activates += n.activates;
    next.precharges += n.precharges;
    next.refreshes += n.refreshes;
    next.reads_from_write_queue += n.reads_from_write_queue;
  }
  next.bytes_read = stats_.bytes_read;
  next.bytes_written = stats_.bytes_written;
  const uint64_t issued = next.read_bursts + next.write_bursts;
  next.data_bus_busy_ps =
      stats_.data_bus_busy_ps + clock_.to_ps(static_cast<Cycle>(issued - issued_) * timings_.burst);
  next.last_done_ps = std::max(stats_.last_done_ps, result.done_ps);
  issued_ = issued;
  stats_ = next;
  return result;
}

}  // namespace s2::sim::dram
