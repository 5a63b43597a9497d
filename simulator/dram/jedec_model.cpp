#include "simulator/dram/jedec_model.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "isa/common/errors.h"

namespace s2::sim::dram {

// Bursts of `channel` are those whose burst index b has b % channels == channel
// (address_mapping.h), so the cursor steps by `channels` through each access's burst range.
class JedecModel::BurstCursor {
 public:
  BurstCursor(const AddressMapping& mapping, const std::vector<Access>& group, uint32_t channel)
      : mapping_(mapping), group_(group), channel_(channel) {
    seek(0);
  }

  bool done() const { return access_ >= group_.size(); }

  // Precondition: !done().
  Queued next(Cycle ready) {
    const DramAddress& a = address_;
    Queued q;
    q.request.rank = a.rank;
    q.request.bank_group = a.bank_group;
    q.request.bank = a.bank;
    q.request.row = a.row;
    q.request.write = group_[access_].kind == AccessKind::Write;
    q.request.ready = ready;
    q.access = static_cast<uint32_t>(access_);
    burst_ += mapping_.channels();
    if (burst_ > last_) {
      seek(access_ + 1);
    } else {
      mapping_.step_in_channel(address_);  // == decode_burst(burst_), without the divisions
    }
    return q;
  }

 private:
  // Moves to the first burst of this channel in access `index` or a later one.
  void seek(std::size_t index) {
    const uint64_t bb = mapping_.burst_bytes();
    const uint64_t channels = mapping_.channels();
    for (access_ = index; access_ < group_.size(); ++access_) {
      const Access& a = group_[access_];
      if (a.bytes == 0) continue;
      const uint64_t first = a.address / bb;
      last_ = (a.address + a.bytes - 1) / bb;
      burst_ = first + (channel_ + channels - first % channels) % channels;
      if (burst_ <= last_) {
        address_ = mapping_.decode_burst(burst_);
        return;
      }
    }
  }

  const AddressMapping& mapping_;
  const std::vector<Access>& group_;
  uint64_t channel_;
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
      capacity_(desc.capacity_bytes),
      banks_per_group_(desc.banks_per_group),
      banks_per_rank_(desc.banks_per_rank()) {
  channels_.reserve(desc.channels);
  for (uint32_t c = 0; c < desc.channels; ++c)
    channels_.emplace_back(desc, timings_);
  queue_.reserve(kQueueDepth);
  seen_.resize(static_cast<std::size_t>(desc.ranks) * banks_per_rank_);
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

// Skipping repeats. In the queue, `ready` never decreases from older to younger entries: the
// initial fill is at the arrival, and each later entry is enqueued at max(arrival, column of the
// burst just issued), and the channel's column commands are issued in increasing time
// (column >= last column + tCCD_S). plan() depends on a request only through its bank, row,
// direction and `ready`, and its column slot never decreases as `ready` grows (a max of terms
// each nondecreasing in it), with the same outcome. So an entry i with the same bank, row and
// direction as an older planned entry j < i has column_i >= column_j and hit_i == hit_j, and
// cannot change the result of the full scan:
//  * after j, best_column <= column_j, and best_column only decreases; so column_i <
//    best_column is false, and column_i == best_column forces column_j == best_column, at
//    which point best_hit >= hit_j (j set it, or it was already a hit at that slot) and best_hit
//    only turns false -> true while best_column holds; so the tie rule does not take i either;
//  * if i would end the scan (a hit at the column floor), j would have ended it first.
// Skipping i is therefore exact; pick() plans one entry per distinct (bank, row, direction) in
// a scan (a stream over a few bank groups has a handful among 32 entries), and chooses exactly
// what planning every entry would.
JedecModel::Pick JedecModel::pick(const JedecChannel& channel) {
  if (queue_.front().bypassed >= kMaxBypass) return {0, channel.plan(queue_.front().request)};
  ++scan_;
  const Cycle floor = channel.column_floor();
  // Only the index during the scan: copying the best plan on every improvement costs more (a
  // store-forwarding stall on its byte-sized outcome) than planning the winner once more.
  std::size_t best = 0;
  Cycle best_column = std::numeric_limits<Cycle>::max();
  bool best_hit = false;
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    const Queued& q = queue_[i];
    Seen& seen = seen_[q.bank_slot];
    if (seen.scan == scan_ && seen.row == q.request.row && seen.write == q.request.write)
      continue;  // an older entry with the same bank, row and direction was planned
    // Field by field: an aggregate assignment here compiles to a stack temporary whose
    // byte-wise stores stall the 16-byte reload (store forwarding), a quarter of pick().
    seen.scan = scan_;
    seen.row = q.request.row;
    seen.write = q.request.write;
    const CommandPlan p = channel.plan(q.request);
    const bool hit = p.outcome == RowOutcome::Hit;
    // The oldest hit at the earliest possible slot wins outright (the common case of a
    // stream); stop scanning.
    if (hit && p.column <= floor) return {i, p};
    // Strictly earlier column slot wins; on a tie a row hit beats a miss or conflict, and
    // otherwise the older request (lower index) keeps its place.
    if (p.column < best_column || (p.column == best_column && hit && !best_hit)) {
      best = i;
      best_column = p.column;
      best_hit = hit;
    }
  }
  return {best, channel.plan(queue_[best].request)};
}

void JedecModel::serve_channel(uint32_t channel_index, const std::vector<Access>& group,
                               Cycle arrival, std::vector<Cycle>& access_done) {
  JedecChannel& channel = channels_[channel_index];
  BurstCursor cursor(mapping_, group, channel_index);
  queue_.clear();
  const auto enqueue = [&](Cycle ready) {
    Queued q = cursor.next(ready);
    q.bank_slot =
        q.request.rank * banks_per_rank_ + q.request.bank_group * banks_per_group_ + q.request.bank;
    queue_.push_back(q);
  };
  while (queue_.size() < kQueueDepth && !cursor.done())
    enqueue(arrival);

  while (!queue_.empty()) {
    const Pick chosen = pick(channel);
    const Queued q = queue_[chosen.index];
    const CommandPlan p = channel.issue(q.request, chosen.plan, stats_);
    access_done[q.access] = std::max(access_done[q.access], p.data_end);
    for (std::size_t i = 0; i < chosen.index; ++i)
      ++queue_[i].bypassed;
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(chosen.index));
    if (!cursor.done()) enqueue(std::max(arrival, p.column));
  }
}

GroupResult JedecModel::serve(const std::vector<Access>& group, Picoseconds arrival_ps) {
  check_range(group);
  const Cycle arrival = clock_.to_cycle(arrival_ps);
  std::vector<Cycle> done(group.size(), arrival);
  const uint64_t bursts_before = stats_.read_bursts + stats_.write_bursts;
  for (uint32_t c = 0; c < channels_.size(); ++c)
    serve_channel(c, group, arrival, done);

  GroupResult result;
  result.done_ps = arrival_ps;
  result.access_done_ps.reserve(group.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    const Picoseconds t = group[i].bytes == 0 ? arrival_ps : clock_.to_ps(done[i]);
    result.access_done_ps.push_back(t);
    result.done_ps = std::max(result.done_ps, t);
    (group[i].kind == AccessKind::Read ? stats_.bytes_read : stats_.bytes_written) +=
        group[i].bytes;
  }
  const uint64_t bursts = stats_.read_bursts + stats_.write_bursts - bursts_before;
  stats_.data_bus_busy_ps += clock_.to_ps(static_cast<Cycle>(bursts) * timings_.burst);
  stats_.last_done_ps = std::max(stats_.last_done_ps, result.done_ps);
  return result;
}

}  // namespace s2::sim::dram
