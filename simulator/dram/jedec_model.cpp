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
  BurstCursor(const AddressMapping& mapping, const std::vector<Access>& group, uint32_t channel)
      : mapping_(mapping),
        group_(group),
        channel_(channel),
        run_(mapping.run_length()),
        by_channels_(run_ == 1 && !mapping.hashed()) {
    seek(0);
  }

  bool done() const { return access_ >= group_.size(); }

  // Writes the next burst into `q` (in place: a Queued built on the stack and copied costs a
  // store-forwarding stall on the hot path). Precondition: !done().
  void next(Cycle ready, Queued& q) {
    const DramAddress& a = address_;
    q.request.rank = a.rank;
    q.request.bank_group = a.bank_group;
    q.request.bank = a.bank;
    q.request.row = a.row;
    q.request.write = group_[access_].kind == AccessKind::Write;
    q.request.ready = ready;
    q.access = static_cast<uint32_t>(access_);
    if (by_channels_) {
      burst_ += mapping_.channels();
      if (burst_ > last_) {
        seek(access_ + 1);
      } else {
        mapping_.step_in_channel(address_);  // == decode_burst(burst_), without the divisions
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
    if (burst_ % run_ == 0) burst_ = mapping_.first_in_channel(channel_, burst_);
    if (burst_ > last_) {
      seek(access_ + 1);
    } else if (burst_ % run_ == 0 || mapping_.hashed()) {
      address_ = mapping_.decode_burst(burst_);
    } else {
      mapping_.step_in_run(address_);
    }
  }

  // Moves to the first burst of this channel in access `index` or a later one.
  void seek(std::size_t index) {
    const uint64_t bb = mapping_.burst_bytes();
    for (access_ = index; access_ < group_.size(); ++access_) {
      const Access& a = group_[access_];
      if (a.bytes == 0) continue;
      last_ = (a.address + a.bytes - 1) / bb;
      burst_ = mapping_.first_in_channel(channel_, a.address / bb);
      if (burst_ <= last_) {
        address_ = mapping_.decode_burst(burst_);
        return;
      }
    }
  }

  const AddressMapping& mapping_;
  const std::vector<Access>& group_;
  uint32_t channel_;
  uint64_t run_;
  bool by_channels_;  // run_ == 1 without a hash: the next burst is `channels` further
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
      peak_(desc.peak_bandwidth_bytes_per_s()),
      capacity_(desc.capacity_bytes) {
  controllers_.reserve(desc.channels);
  for (uint32_t c = 0; c < desc.channels; ++c)
    controllers_.emplace_back(mapping_, timings_, c, desc);
}

void JedecModel::set_threads(unsigned threads) {
  const unsigned n =
      std::min<unsigned>(std::max(threads, 1u), static_cast<unsigned>(controllers_.size()));
  if (n == (pool_ ? pool_->threads() : 1u)) return;
  pool_ = n > 1 ? std::make_unique<TaskPool>(n) : nullptr;
}

JedecModel::Controller::Controller(const AddressMapping& mapping, const JedecTimings& timings,
                                   uint32_t index, const target::DramDesc& desc)
    : mapping_(mapping),
      index_(index),
      fcfs_(desc.controller.scheduler == target::DramScheduler::Fcfs),
      closed_page_(desc.controller.row_policy == target::RowPolicy::Closed),
      channel_(desc, timings) {}

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

// Planning one burst per stream. In the queue, `ready` never decreases from older to younger
// entries: the initial fill is at the arrival, and each later entry is enqueued at
// max(arrival, column of the burst just issued), and the channel's column commands are issued
// in increasing time (column >= last column + tCCD_S). plan() depends on a request only through
// its bank, row, direction and `ready`, and its column slot never decreases as `ready` grows (a
// max of terms each nondecreasing in it), with the same outcome. So an entry i with the same
// bank, row and direction as an older entry j < i has column_i >= column_j and hit_i == hit_j,
// and cannot change the result of a scan of every entry in age order:
//  * after j, best_column <= column_j, and best_column only decreases; so column_i <
//    best_column is false, and column_i == best_column forces column_j == best_column, at
//    which point best_hit >= hit_j (j set it, or it was already a hit at that slot) and best_hit
//    only turns false -> true while best_column holds; so the tie rule does not take i either;
//  * if i would end the scan (a hit at the column floor), j would have ended it first.
// The same holds by induction when several such entries are dropped. So scanning each stream's
// oldest burst, in the age order of those bursts (the order of streams_), chooses exactly what
// planning every entry would; a stream over a few bank groups has a handful of streams among 32
// entries. The chosen burst is its stream's oldest, so bursts of a stream leave in order.
std::size_t JedecModel::Controller::pick(uint64_t picks, bool oldest_hit, CommandPlan& plan) const {
  const JedecChannel& channel = channel_;
  if (picks - slots_[streams_[order_[0]].head].age_key >= kMaxBypass) {
    channel.plan_into(slots_[streams_[order_[0]].head].request, plan);
    return 0;
  }
  const Cycle floor = channel.column_floor();
  // First pass: the scan below stops at the first row hit at the column floor, and only a hit
  // can stop it, so look for that hit planning hits alone (a miss or conflict, the costlier
  // plan, is passed over by its bank state). Finding it decides the pick exactly as the full
  // scan would, which reaches it having stopped nowhere earlier. The hits' column slots are
  // kept for the full scan (the channel state does not change in between). The oldest burst,
  // at position 0, was evaluated by the caller.
  Cycle hit_column[kQueueDepth];
  bool is_hit[kQueueDepth];
  is_hit[0] = oldest_hit;
  hit_column[0] = plan.column;
  std::size_t hits_end = oldest_hit ? 1 : 0;  // one past the youngest hit's position
  for (std::size_t i = 1; i < stream_count_; ++i) {
    const Stream& s = streams_[order_[i]];
    is_hit[i] = channel.outcome_at(s.bank(), s.row()) == RowOutcome::Hit;
    if (!is_hit[i]) continue;
    hits_end = i + 1;
    const BurstRequest& r = slots_[s.head].request;
    hit_column[i] = channel.hit_column(r);
    if (hit_column[i] <= floor) {
      channel.plan_into(r, plan);
      return i;
    }
  }
  // Full scan, in age order: strictly earlier column slot wins; on a tie a row hit beats a
  // miss or conflict, and otherwise the older request (lower index) keeps its place. So a miss
  // or conflict whose column cannot come before the best so far cannot win, whatever its
  // exact plan: it is passed over on a lower bound of its column. That bound depends on the
  // stream only through its rank and its head's ready time, which never decreases along the
  // age order (see above), and best_column only decreases: so once one miss or conflict of a
  // rank is passed over, every younger one of that rank would be too. The rank is then
  // settled, and once every rank is, only the hits are left to compare.
  std::size_t best = 0;
  Cycle best_column = std::numeric_limits<Cycle>::max();
  bool best_hit = false;
  uint32_t settled = 0;  // bit r: rank r's misses and conflicts cannot win
  const uint32_t all_ranks = channel.all_ranks_mask();
  for (std::size_t i = 0; i < stream_count_; ++i) {
    Cycle column = 0;
    if (is_hit[i]) {
      column = hit_column[i];
    } else {
      const Stream& s = streams_[order_[i]];
      const uint32_t rank_bit = 1u << s.rank;
      if (settled & rank_bit) continue;
      if (channel.activate_column_bound(s.rank, s.head_ready) >= best_column) {
        settled |= rank_bit;
        if (settled == all_ranks && i >= hits_end) break;
        continue;
      }
      channel.plan_into(slots_[s.head].request, plan);
      column = plan.column;
    }
    const bool hit = is_hit[i];
    if (column < best_column || (column == best_column && hit && !best_hit)) {
      best = i;
      best_column = column;
      best_hit = hit;
    }
  }
  channel.plan_into(slots_[streams_[order_[best]].head].request, plan);
  return best;
}

bool JedecModel::Controller::row_wanted(const BurstRequest& r) const {
  const uint64_t row_key = stream_key(r) >> 1;  // either direction
  for (std::size_t i = 0; i < stream_count_; ++i) {
    if (streams_[order_[i]].key >> 1 == row_key) return true;
  }
  return false;
}

void JedecModel::Controller::enqueue(uint8_t slot) {
  Queued& q = slots_[slot];
  q.next = kNone;
  const uint64_t key = stream_key(q.request);
  ++queued_;
  // At most one stream per (bank, row, direction). Searched youngest head first: in a
  // sequential stream the burst entering is kQueueDepth behind the one that just left, often
  // in the same bank group, and that stream has just moved to the back.
  for (std::size_t i = stream_count_; i-- > 0;) {
    Stream& s = streams_[order_[i]];
    if (s.key == key) {
      slots_[s.tail].next = slot;
      s.tail = slot;
      return;
    }
  }
  // The youngest burst: a new stream goes last in age order.
  const uint8_t id = free_[--free_count_];
  Stream& s = streams_[id];
  s.key = key;
  s.head_ready = q.request.ready;
  s.head_seq = q.seq;
  s.head = slot;
  s.tail = slot;
  s.rank = static_cast<uint8_t>(q.request.rank);
  order_[stream_count_++] = id;
}

void JedecModel::Controller::dequeue(std::size_t position) {
  --queued_;
  const uint8_t id = order_[position];
  Stream& s = streams_[id];
  const uint8_t next = slots_[s.head].next;
  if (next == kNone) {  // the stream is empty: close the gap
    free_[free_count_++] = id;
    --stream_count_;
    for (std::size_t i = position; i < stream_count_; ++i)
      order_[i] = order_[i + 1];
    return;
  }
  // The stream's next burst is younger: move the stream back to its age rank.
  s.head = next;
  s.head_ready = slots_[next].request.ready;
  s.head_seq = slots_[next].seq;
  std::size_t i = position;
  for (; i + 1 < stream_count_ && streams_[order_[i + 1]].head_seq < s.head_seq; ++i)
    order_[i] = order_[i + 1];
  order_[i] = id;
}

void JedecModel::Controller::serve(const std::vector<Access>& group, Cycle arrival) {
  JedecChannel& channel = channel_;
  std::vector<Cycle>& access_done = done_;
  access_done.assign(group.size(), arrival);
  counts_ = DramStats{};
  BurstCursor cursor(mapping_, group, index_);
  uint64_t picks = 0;
  uint32_t seq = 0;
  const auto fill = [&](uint8_t slot, Cycle ready) {
    Queued& q = slots_[slot];
    cursor.next(ready, q);
    q.seq = seq++;
    q.age_key = picks + queued_;
    enqueue(slot);
  };
  queued_ = 0;
  stream_count_ = 0;
  free_count_ = kQueueDepth;
  for (std::size_t i = 0; i < kQueueDepth; ++i)
    free_[i] = static_cast<uint8_t>(kQueueDepth - 1 - i);
  while (queued_ < kQueueDepth && !cursor.done())
    fill(static_cast<uint8_t>(queued_), arrival);

  CommandPlan planned;
  while (queued_ > 0) {
    // The common case, inline: the oldest burst is a row hit at the column floor. pick() would
    // take it whatever the bypass count (rule 3 takes it too), so skip the call. FCFS always
    // takes the oldest.
    const BurstRequest& oldest = slots_[streams_[order_[0]].head].request;
    std::size_t chosen = 0;
    if (fcfs_) {
      channel.plan_into(oldest, planned);
    } else {
      const bool oldest_hit = channel.outcome(oldest) == RowOutcome::Hit;
      if (oldest_hit) channel.plan_into(oldest, planned);
      if (!oldest_hit || planned.column > channel.column_floor())
        chosen = pick(picks, oldest_hit, planned);
    }
    const uint8_t slot = streams_[order_[chosen]].head;
    const Queued& q = slots_[slot];
    channel.issue(q.request, planned, counts_);
    access_done[q.access] = std::max(access_done[q.access], planned.data_end);
    ++picks;
    dequeue(chosen);  // leaves the slot's contents until fill() reuses it
    if (closed_page_ && !row_wanted(slots_[slot].request))
      channel.close_row(slots_[slot].request, counts_);
    // The slot just freed takes the next burst (q is dead from here).
    if (!cursor.done()) fill(slot, std::max(arrival, planned.column));
  }
}

GroupResult JedecModel::serve(const std::vector<Access>& group, Picoseconds arrival_ps) {
  check_range(group);
  const Cycle arrival = clock_.to_cycle(arrival_ps);
  // Only a pool needs the group's size (to decide whether handing it over pays).
  const auto large = [&] {
    uint64_t bursts = 0;
    for (const Access& a : group)
      bursts += bursts_of(a, mapping_.burst_bytes());
    return bursts >= kParallelBursts;
  };
  const auto serve_channel = [&](std::size_t c) { controllers_[c].serve(group, arrival); };
  if (pool_ && large()) {
    pool_->run(controllers_.size(), serve_channel);
  } else {
    for (std::size_t c = 0; c < controllers_.size(); ++c)
      serve_channel(c);
  }

  GroupResult result;
  result.done_ps = arrival_ps;
  result.access_done_ps.reserve(group.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    Cycle done = arrival;
    for (const Controller& c : controllers_)
      done = std::max(done, c.done()[i]);
    const Picoseconds t = group[i].bytes == 0 ? arrival_ps : clock_.to_ps(done);
    result.access_done_ps.push_back(t);
    result.done_ps = std::max(result.done_ps, t);
    (group[i].kind == AccessKind::Read ? stats_.bytes_read : stats_.bytes_written) +=
        group[i].bytes;
  }
  uint64_t issued = 0;
  for (const Controller& c : controllers_) {
    const DramStats& n = c.counts();
    issued += n.read_bursts + n.write_bursts;
    stats_.read_bursts += n.read_bursts;
    stats_.write_bursts += n.write_bursts;
    stats_.row_hits += n.row_hits;
    stats_.row_misses += n.row_misses;
    stats_.row_conflicts += n.row_conflicts;
    stats_.activates += n.activates;
    stats_.precharges += n.precharges;
    stats_.refreshes += n.refreshes;
  }
  stats_.data_bus_busy_ps += clock_.to_ps(static_cast<Cycle>(issued) * timings_.burst);
  stats_.last_done_ps = std::max(stats_.last_done_ps, result.done_ps);
  return result;
}

}  // namespace s2::sim::dram
