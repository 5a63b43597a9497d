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
    const DramAddress a = mapping_.decode_burst(burst_);
    Queued q;
    q.request.rank = a.rank;
    q.request.bank_group = a.bank_group;
    q.request.bank = a.bank;
    q.request.row = a.row;
    q.request.write = group_[access_].kind == AccessKind::Write;
    q.request.ready = ready;
    q.access = static_cast<uint32_t>(access_);
    burst_ += mapping_.channels();
    if (burst_ > last_) seek(access_ + 1);
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
      if (burst_ <= last_) return;
    }
  }

  const AddressMapping& mapping_;
  const std::vector<Access>& group_;
  uint64_t channel_;
  std::size_t access_ = 0;
  uint64_t burst_ = 0;
  uint64_t last_ = 0;
};

JedecModel::JedecModel(const target::DramDesc& desc, std::string backend)
    : backend_(std::move(backend)),
      mapping_(desc),
      clock_(desc.clock_mhz),
      timings_(JedecTimings::from(desc)),
      peak_(desc.peak_bandwidth_bytes_per_s()),
      capacity_(desc.capacity_bytes) {
  channels_.reserve(desc.channels);
  for (uint32_t c = 0; c < desc.channels; ++c)
    channels_.emplace_back(desc, timings_);
  queue_.reserve(kQueueDepth);
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

std::size_t JedecModel::pick(const JedecChannel& channel) const {
  if (queue_.front().bypassed >= kMaxBypass) return 0;
  std::size_t best = 0;
  Cycle best_column = std::numeric_limits<Cycle>::max();
  bool best_hit = false;
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    const CommandPlan p = channel.plan(queue_[i].request);
    const bool hit = p.outcome == RowOutcome::Hit;
    // The oldest hit at the earliest possible slot wins outright (the common case of a
    // stream); stop scanning.
    if (hit && p.column <= channel.column_floor()) return i;
    // Strictly earlier column slot wins; on a tie a row hit beats a miss or conflict, and
    // otherwise the older request (lower index) keeps its place.
    if (p.column < best_column || (p.column == best_column && hit && !best_hit)) {
      best = i;
      best_column = p.column;
      best_hit = hit;
    }
  }
  return best;
}

void JedecModel::serve_channel(uint32_t channel_index, const std::vector<Access>& group,
                               Cycle arrival, std::vector<Cycle>& access_done) {
  JedecChannel& channel = channels_[channel_index];
  BurstCursor cursor(mapping_, group, channel_index);
  queue_.clear();
  while (queue_.size() < kQueueDepth && !cursor.done())
    queue_.push_back(cursor.next(arrival));

  while (!queue_.empty()) {
    const std::size_t chosen = pick(channel);
    const Queued q = queue_[chosen];
    const CommandPlan p = channel.issue(q.request, stats_);
    access_done[q.access] = std::max(access_done[q.access], p.data_end);
    for (std::size_t i = 0; i < chosen; ++i)
      ++queue_[i].bypassed;
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(chosen));
    if (!cursor.done()) queue_.push_back(cursor.next(std::max(arrival, p.column)));
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
