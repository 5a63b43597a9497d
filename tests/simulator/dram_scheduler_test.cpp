// The JEDEC model's FR-FCFS scheduler against a plain restatement of its rules
// (jedec_model.h): every queued burst planned at every step, a bypass counter per burst, the
// queue an age-ordered list. The model plans one burst per (bank, row, direction), skips
// misses and conflicts on a lower bound of their column slot and keeps bypass counts without
// touching the queue; this test holds it to giving the same times and counts as the plain
// rules on mixed, conflict-heavy traffic over several groups, through both queues.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dram_test_util.h"
#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/jedec_channel.h"
#include "simulator/dram/jedec_model.h"

namespace s2::sim::dram {
namespace {

// The controller as jedec_model.h states it, one JedecChannel per channel: a read and a write
// queue per channel, write draining between the watermarks, reads answered from a queued write,
// FR-FCFS (or FCFS) within the queue being served. Each group is decided to its end before the
// next arrives (serve()), so a group's bursts enter from its arrival.
class PlainScheduler {
 public:
  explicit PlainScheduler(const target::DramDesc& desc)
      : mapping_(desc),
        clock_(desc.clock_mhz),
        timings_(JedecTimings::from(desc)),
        controller_(desc.controller),
        fcfs_(desc.controller.scheduler == target::DramScheduler::Fcfs) {
    for (uint32_t c = 0; c < desc.channels; ++c)
      channels_.emplace_back(desc, timings_);
    draining_.assign(desc.channels, false);
    for (uint32_t c = 0; c < desc.channels; ++c)
      queues_.push_back({Queue(desc.controller.read_queue), Queue(desc.controller.write_queue)});
  }

  std::vector<Picoseconds> serve(const std::vector<Access>& group, Picoseconds arrival_ps) {
    const Cycle arrival = clock_.to_cycle(arrival_ps);
    std::vector<Cycle> done(group.size(), arrival);
    for (uint32_t c = 0; c < channels_.size(); ++c)
      serve_channel(c, group, arrival, done);
    std::vector<Picoseconds> out;
    for (std::size_t i = 0; i < group.size(); ++i)
      out.push_back(group[i].bytes == 0 ? arrival_ps : clock_.to_ps(done[i]));
    return out;
  }

  const DramStats& stats() const { return stats_; }

 private:
  struct Entry {
    BurstRequest request;
    std::size_t access = 0;
    uint64_t burst = 0;
    uint32_t bypassed = 0;
  };

  void serve_channel(uint32_t c, const std::vector<Access>& group, Cycle arrival,
                     std::vector<Cycle>& done) {
    // Every burst of this channel, accesses in order, each in address order.
    std::vector<Entry> bursts;
    const uint64_t bb = mapping_.burst_bytes();
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (group[i].bytes == 0) continue;
      for (uint64_t b = group[i].address / bb; b <= (group[i].address + group[i].bytes - 1) / bb;
           ++b) {
        const DramAddress a = mapping_.decode_burst(b);
        if (a.channel != c) continue;
        Entry e;
        e.request = channels_[c].request(a, group[i].kind == AccessKind::Write, 0);
        e.access = i;
        e.burst = b;
        bursts.push_back(e);
      }
    }
    JedecChannel& channel = channels_[c];
    // Per direction: the queue in age order, when each free slot was freed (oldest first),
    // and the last entry's ready cycle; kept from group to group (a slot freed by an earlier
    // group's column command takes no burst before it).
    std::array<Queue, 2>& queues = queues_[c];
    Queue& reads = queues[0];
    Queue& writes = queues[1];
    std::size_t next = 0;
    // In order, each burst enters its queue while there is room; a read of a burst a queued
    // write holds is answered, when it enters, one cycle later.
    auto admit = [&] {
      while (next < bursts.size()) {
        Entry e = bursts[next];
        Queue& q = queues[e.request.write ? 1 : 0];
        const bool forwarded =
            !e.request.write && std::any_of(writes.entries.begin(), writes.entries.end(),
                                            [&](const Entry& w) { return w.burst == e.burst; });
        if (q.entries.size() >= q.capacity) return;
        if (forwarded) {
          done[e.access] = std::max(done[e.access], std::max(arrival, q.last_ready) + 1);
          ++stats_.reads_from_write_queue;
          ++next;
          continue;
        }
        e.request.ready = std::max({arrival, q.freed.front(), q.last_ready});
        q.freed.erase(q.freed.begin());
        q.last_ready = e.request.ready;
        q.entries.push_back(e);
        ++next;
      }
    };
    bool& draining = draining_[c];
    for (admit(); !reads.entries.empty() || !writes.entries.empty(); admit()) {
      if (draining) {
        draining =
            !writes.entries.empty() &&
            (writes.entries.size() > controller_.write_low_watermark || reads.entries.empty());
      } else {
        draining =
            !writes.entries.empty() &&
            (writes.entries.size() >= controller_.write_high_watermark || reads.entries.empty());
      }
      std::vector<Entry>& queue = (draining ? writes : reads).entries;
      std::size_t pick = 0;
      if (!fcfs_ && queue.front().bypassed < JedecModel::kMaxBypass) {
        const Cycle floor = channel.column_floor();
        // A bank's open row is wanted when a queued burst of either queue hits it.
        const auto wanted = [&](uint32_t bank) {
          for (const Queue* q : {&reads, &writes})
            for (const Entry& e : q->entries)
              if (e.request.flat_bank == bank && channel.plan(e.request).outcome == RowOutcome::Hit)
                return true;
          return false;
        };
        Cycle best_column = std::numeric_limits<Cycle>::max();
        bool best_keeps = false;
        for (std::size_t i = 0; i < queue.size(); ++i) {
          const CommandPlan p = channel.plan(queue[i].request);
          // Leaves every wanted row open: a hit, a miss, or a conflict on an unwanted row.
          const bool keeps =
              p.outcome != RowOutcome::Conflict || !wanted(queue[i].request.flat_bank);
          if (keeps && p.column <= floor) {
            pick = i;
            break;
          }
          if (p.column < best_column || (p.column == best_column && keeps && !best_keeps)) {
            pick = i;
            best_column = p.column;
            best_keeps = keeps;
          }
        }
      }
      const CommandPlan p = channel.issue(queue[pick].request, stats_);
      done[queue[pick].access] = std::max(done[queue[pick].access], p.data_end);
      for (std::size_t i = 0; i < pick; ++i)
        ++queue[i].bypassed;
      queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(pick));
      (draining ? writes : reads).freed.push_back(p.column);
    }
  }

  struct Queue {
    explicit Queue(uint32_t n) : capacity(n), freed(n, std::numeric_limits<Cycle>::min()) {}
    std::size_t capacity;
    std::vector<Cycle> freed;
    Cycle last_ready = std::numeric_limits<Cycle>::min();
    std::vector<Entry> entries;
  };

  AddressMapping mapping_;
  DramClock clock_;
  JedecTimings timings_;
  target::DramControllerDesc controller_;
  bool fcfs_;
  std::vector<JedecChannel> channels_;
  std::vector<std::array<Queue, 2>> queues_;  // per channel: reads, writes
  std::deque<bool> draining_;  // per channel: serving writes (kept from group to group)
  DramStats stats_;
};

// Groups like a tiler's: strided runs of short accesses (rows of a tile) in a few tensors
// far apart, so rows conflict; reads and writes mixed; sometimes one long access.
std::vector<Access> random_group(std::mt19937_64& rng, uint64_t capacity) {
  std::vector<Access> group;
  const uint64_t tensors[] = {0, capacity / 4 + 4096, capacity / 2 + 192, capacity - (64 << 20)};
  const int runs = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < runs; ++r) {
    const uint64_t base = tensors[rng() % 4] + (rng() % (1 << 20)) * 4;
    const AccessKind kind = rng() % 3 == 0 ? AccessKind::Write : AccessKind::Read;
    if (rng() % 8 == 0) {
      group.push_back({base, 4096 + rng() % 65536, kind});
      continue;
    }
    const uint64_t rows = 1 + rng() % 40, bytes = 4 + rng() % 600, stride = 256 + rng() % 9000;
    for (uint64_t i = 0; i < rows; ++i)
      group.push_back({base + i * stride, rng() % 16 == 0 ? 0 : bytes, kind});
  }
  return group;
}

// Serves 300 random groups on the model and on PlainScheduler: every access's completion and
// every count must agree.
void expect_matches_plain(const target::DramDesc& desc, const std::string& label) {
  const std::unique_ptr<DramModel> model = make_dram_model(desc);
  PlainScheduler plain(desc);
  std::mt19937_64 rng(2024);  // fixed seed: the test is deterministic
  Picoseconds now = 0;
  for (int g = 0; g < 300; ++g) {
    const std::vector<Access> group = random_group(rng, desc.capacity_bytes);
    const GroupResult got = model->serve(group, now);
    ASSERT_EQ(got.access_done_ps, plain.serve(group, now)) << label << " group " << g;
    // Next arrival: sometimes while this group is in flight, sometimes long after (refresh).
    now = rng() % 2 == 0 ? now + (got.done_ps - now) / 3 : got.done_ps + rng() % 20'000'000;
  }
  const DramStats& a = model->stats();
  const DramStats& b = plain.stats();
  EXPECT_EQ(a.read_bursts, b.read_bursts);
  EXPECT_EQ(a.write_bursts, b.write_bursts);
  EXPECT_EQ(a.row_hits, b.row_hits);
  EXPECT_EQ(a.row_misses, b.row_misses);
  EXPECT_EQ(a.row_conflicts, b.row_conflicts);
  EXPECT_EQ(a.activates, b.activates);
  EXPECT_EQ(a.precharges, b.precharges);
  EXPECT_EQ(a.refreshes, b.refreshes);
  EXPECT_EQ(a.reads_from_write_queue, b.reads_from_write_queue);
  EXPECT_GT(a.row_conflicts, 0u);  // the traffic did exercise the full scan
}

class DramScheduler : public ::testing::TestWithParam<const char*> {};

TEST_P(DramScheduler, MatchesThePlainFrFcfsRules) {
  expect_matches_plain(load_preset(GetParam()), GetParam());
}

// Every preset has one rank; the scheduler passes over a rank's misses and conflicts as a
// whole once one fails its bound, so two ranks must give what the plain rules give too.
TEST(DramScheduler, MatchesThePlainFrFcfsRulesOnTwoRanks) {
  target::DramDesc desc = load_preset("DDR4-3200");
  desc.ranks = 2;
  expect_matches_plain(desc, "DDR4-3200 with 2 ranks");
}

// The burst cursor with a channel count that is not a power of two and channels in runs (one
// burst per bank group each), against the plain rules that decode every burst on its own.
TEST(DramScheduler, MatchesThePlainFrFcfsRulesOnThreeChannelsInRuns) {
  const target::DramDesc desc =
      load_preset("DDR4-3200",
                  "channels: 3, controller: {address_mapping: [row, rank, bank, column, channel, "
                  "bank_group]}");
  expect_matches_plain(desc, "DDR4-3200 with 3 channels in runs");
}

// Small queues and close watermarks switch between reads and writes often, and FCFS takes the
// oldest of the queue being served.
TEST(DramScheduler, MatchesThePlainRulesWithSmallQueuesAndFcfs) {
  expect_matches_plain(
      load_preset("DDR4-3200",
                  "controller: {read_queue: 8, write_queue: 12, write_high_watermark: 6, "
                  "write_low_watermark: 2}"),
      "DDR4-3200 with small queues");
  expect_matches_plain(load_preset("HBM2", "controller: {scheduler: fcfs, write_queue: 4}"),
                       "HBM2 FCFS");
}

INSTANTIATE_TEST_SUITE_P(Presets, DramScheduler,
                         ::testing::Values("DDR4-3200", "LPDDR4-4266", "HBM2"));

}  // namespace
}  // namespace s2::sim::dram
