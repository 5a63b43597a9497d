// The JEDEC controller's queues (jedec_model.h) with many requesters: groups submitted together
// share each channel's read and write queues, so
//  * random 64-byte reads, one per requester, reach the rate the ACT windows (tRC over the
//    banks, tRRD_S, tFAW), the data bus, the command bus and the queue depth predict (the
//    prediction is written down below from the preset's numbers);
//  * a read/write mix on one bank goes in write batches, the bus turning around once per batch;
//  * a request to a busy bank does not delay a request to an idle bank behind it;
//  * a read of a burst a queued write holds is answered from that write;
//  * decisions are causal: a later arrival changes nothing decided before it arrived.
// Each is also shown against the same requests handed over one group at a time (serve()),
// which is what the model did for every group before the queues were shared.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dram_test_util.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/jedec_model.h"

namespace s2::sim::dram {
namespace {

// Random 64-byte read addresses over the whole capacity.
std::vector<Access> random_reads(const target::DramDesc& desc, std::size_t count) {
  std::mt19937_64 rng(99);  // fixed seed: the test is deterministic
  std::vector<Access> out;
  const uint64_t slots = desc.capacity_bytes / 64;
  for (std::size_t i = 0; i < count; ++i)
    out.push_back({(rng() % slots) * 64, 64, AccessKind::Read});
  return out;
}

// Bytes per second when every access is its own group, all arriving at time 0: submitted
// together (`together`), or served one after the other.
double one_per_requester(const target::DramDesc& desc, const std::vector<Access>& accesses,
                         bool together) {
  const std::unique_ptr<DramModel> model = make_dram_model(desc);
  Picoseconds end = 0;
  if (together) {
    std::vector<GroupId> ids;
    for (const Access& a : accesses)
      ids.push_back(model->submit({a}, 0));
    for (GroupId id : ids)
      end = std::max(end, model->complete(id).done_ps);
  } else {
    for (const Access& a : accesses)
      end = std::max(end, model->serve({a}, 0).done_ps);
  }
  return static_cast<double>(accesses.size() * 64) / (static_cast<double>(end) * 1e-12);
}

// The rate of random 64-byte reads (nearly all row conflicts), on one rank per channel, in
// accesses per DRAM cycle per channel: an access is b = max(1, 64 B / burst size) bursts to one
// row, the first needing PRE and ACT, and the rate is the smallest of
//   bank cycling   banks / tRC       each bank opens a new row at most once per tRC
//   tFAW           4 / tFAW          at most four ACTs in any tFAW
//   tRRD_S         1 / tRRD_S
//   data bus       1 / (b max(BL / data rate, tCCD_S))
//   command bus    1 / (b + 2)       PRE, ACT and b column commands, one command per cycle
//   queue depth    Q / (b (tRP + tRCD) + g b (b - 1) / 2): Little's law. A burst holds its
//                  slot from entering the queue to its column command (its data follows with
//                  the slot already free); an access's bursts enter together, the first waits a
//                  conflict's tRP + tRCD and the k-th k column gaps g = max(BL / data rate,
//                  tCCD_S) more, so Q slots serve Q / (the access's slot time) accesses
// and all-bank refresh takes the fraction tRFC / tREFI off it.
struct Prediction {
  double rate;       // bytes/s, refresh included
  bool queue_bound;  // the queue depth is the smallest term
};

Prediction predict(const target::DramDesc& d) {
  const target::DramTiming& t = d.timing;
  const double burst = static_cast<double>(d.burst_length) / d.data_rate;
  const double b = std::max(1.0, 64.0 / d.burst_bytes());
  const double banks = static_cast<double>(d.banks_per_rank());
  const double windows =
      std::min({banks / t.tRC, 4.0 / t.tFAW, 1.0 / t.tRRD_S,
                1.0 / (b * std::max(burst, static_cast<double>(t.tCCD_S))), 1.0 / (b + 2)});
  const double gap = std::max(burst, static_cast<double>(t.tCCD_S));
  const double queue = d.controller.read_queue / (b * (t.tRP + t.tRCD) + gap * b * (b - 1) / 2);
  const double per_cycle = std::min(windows, queue);
  const double refresh = 1.0 - static_cast<double>(t.tRFC) / t.tREFI;
  return {per_cycle * 64.0 * d.clock_mhz * 1e6 * d.channels * refresh, queue < windows};
}

class DramQueues : public ::testing::TestWithParam<std::string> {};

TEST_P(DramQueues, RandomReadsFromManyRequestersReachThePredictedRate) {
  const target::DramDesc desc = load_preset(GetParam());
  const std::vector<Access> reads = random_reads(desc, 20000);
  const Prediction expected = predict(desc);
  ASSERT_FALSE(expected.queue_bound) << GetParam();
  const double together = one_per_requester(desc, reads, true);
  EXPECT_GE(together, 0.90 * expected.rate) << GetParam();
  EXPECT_LE(together,
            expected.rate / (1.0 - static_cast<double>(desc.timing.tRFC) / desc.timing.tREFI))
      << GetParam();
  // One group at a time, a read to a busy bank held up every read behind it.
  const double serial = one_per_requester(desc, reads, false);
  EXPECT_LT(serial, 0.75 * together) << GetParam();
  RecordProperty("together_GBps", std::to_string(together / 1e9));
  RecordProperty("one_at_a_time_GBps", std::to_string(serial / 1e9));
  RecordProperty("predicted_GBps", std::to_string(expected.rate / 1e9));
  std::printf(
      "%s one read per requester: %.2f GB/s together, %.2f one at a time, predicted "
      "%.2f\n",
      GetParam().c_str(), together / 1e9, serial / 1e9, expected.rate / 1e9);
}

TEST_P(DramQueues, AShallowReadQueueLimitsRandomReadsAsLittlesLawSays) {
  const target::DramDesc desc = load_preset(GetParam(), "controller: {read_queue: 2}");
  const Prediction expected = predict(desc);
  ASSERT_TRUE(expected.queue_bound) << GetParam();
  const double rate = one_per_requester(desc, random_reads(desc, 20000), true);
  // Within 20%: with two reads in flight, one in (banks) pairs falls on one bank and waits its
  // tRC, which Little's law with the conflict time alone does not count (DDR4-3200: 0.88 of it).
  EXPECT_GE(rate, 0.80 * expected.rate) << GetParam();
  // A miss (bank closed by a refresh) skips tRP, so the bound without refresh allows for it.
  const target::DramTiming& t = desc.timing;
  const double b = std::max(1.0, 64.0 / desc.burst_bytes());
  const double gap = std::max(static_cast<double>(desc.burst_length) / desc.data_rate,
                              static_cast<double>(t.tCCD_S));
  EXPECT_LE(rate, 2.0 / (b * t.tRCD + gap * b * (b - 1) / 2) * 64.0 * desc.clock_mhz * 1e6 *
                      desc.channels)
      << GetParam();
  RecordProperty("achieved_GBps", std::to_string(rate / 1e9));
  RecordProperty("predicted_GBps", std::to_string(expected.rate / 1e9));
  std::printf("%s read_queue 2: %.2f GB/s, predicted %.2f\n", GetParam().c_str(), rate / 1e9,
              expected.rate / 1e9);
}

TEST_P(DramQueues, ABusyBankDoesNotDelayAnIdleBankBehindIt) {
  DramProbe p(GetParam());
  const target::DramTiming& t = p.desc.timing;
  // Row 1 of bank (0, 0) opens at cycle 0; a read of row 2 of the same bank must wait for tRAS,
  // then tRP and tRCD; a read of an idle bank arriving after it needs only tRCD.
  const DramClock clock(p.desc.clock_mhz);
  const auto at = [&](int64_t c) { return clock.to_ps(c); };
  const uint32_t other_group = 1 % p.desc.bank_groups;
  const GroupId first = p.model->submit({p.at(0, 0, 1, 0)}, at(0));
  const GroupId busy = p.model->submit({p.at(0, 0, 2, 0)}, at(2));
  const GroupId idle = p.model->submit({p.at(other_group, 1, 3, 0)}, at(4));
  EXPECT_EQ(clock.to_cycle(p.model->complete(first).done_ps), n(t.tRCD) + n(t.tCL) + p.burst);
  const int64_t busy_done = clock.to_cycle(p.model->complete(busy).done_ps);
  const int64_t idle_done = clock.to_cycle(p.model->complete(idle).done_ps);
  EXPECT_EQ(busy_done, n(t.tRAS) + n(t.tRP) + n(t.tRCD) + n(t.tCL) + p.burst);
  // The idle bank's ACT waits only for its arrival and tRRD after the first ACT; its read
  // completes long before the busy bank's.
  const int64_t act = std::max<int64_t>(4, other_group != 0 ? n(t.tRRD_S) : n(t.tRRD_L));
  EXPECT_EQ(idle_done, act + n(t.tRCD) + n(t.tCL) + p.burst);
  EXPECT_LT(idle_done, busy_done);

  // One group at a time, the idle bank's read is served after the busy bank's.
  DramProbe serial(GetParam());
  serial.model->serve({serial.at(0, 0, 1, 0)}, at(0));
  serial.model->serve({serial.at(0, 0, 2, 0)}, at(2));
  EXPECT_GT(clock.to_cycle(serial.model->serve({serial.at(other_group, 1, 3, 0)}, at(4)).done_ps),
            busy_done);
}

TEST_P(DramQueues, ReadWriteMixOnOneBankDrainsWritesInBatches) {
  DramProbe p(GetParam());
  const target::DramControllerDesc& c = p.desc.controller;
  // 96 requesters, alternately reading and writing columns of one open row of one bank.
  std::vector<Access> mix;
  for (uint32_t i = 0; i < 96; ++i) {
    mix.push_back(p.at(0, 0, 7, i % 64, i % 2 == 0 ? AccessKind::Read : AccessKind::Write));
  }
  std::vector<GroupId> ids;
  for (const Access& a : mix)
    ids.push_back(p.model->submit({a}, 0));
  std::vector<std::pair<Picoseconds, bool>> order;  // completion, write
  for (std::size_t i = 0; i < ids.size(); ++i)
    order.push_back({p.model->complete(ids[i]).done_ps, mix[i].kind == AccessKind::Write});
  std::sort(order.begin(), order.end());
  // Runs of writes in completion order: each but the last drains from the high watermark to
  // the low one at least.
  std::vector<uint32_t> write_runs;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (!order[i].second) continue;
    if (i == 0 || !order[i - 1].second) write_runs.push_back(0);
    ++write_runs.back();
  }
  ASSERT_GE(write_runs.size(), 2u);
  for (std::size_t r = 0; r + 1 < write_runs.size(); ++r)
    EXPECT_GE(write_runs[r], c.write_high_watermark - c.write_low_watermark) << "run " << r;
  EXPECT_LE(write_runs.size(), 48u / (c.write_high_watermark - c.write_low_watermark) + 1);
  // The same requests one at a time alternate: a turnaround for every request.
  DramProbe serial(GetParam());
  Picoseconds serial_end = 0;
  for (const Access& a : mix)
    serial_end = std::max(serial_end, serial.model->serve({a}, 0).done_ps);
  EXPECT_LT(order.back().first, serial_end);
}

TEST_P(DramQueues, AReadOfAQueuedWriteIsAnsweredFromIt) {
  DramProbe p(GetParam());
  const Access write = p.at(0, 0, 3, 5, AccessKind::Write);
  const Access read{write.address, write.bytes, AccessKind::Read};
  const GroupId w = p.model->submit({write}, 0);
  const GroupId r = p.model->submit({read}, 0);
  const GroupResult read_done = p.model->complete(r);
  const GroupResult write_done = p.model->complete(w);
  EXPECT_EQ(DramClock(p.desc.clock_mhz).to_cycle(read_done.done_ps), 1);  // one cycle
  EXPECT_GT(write_done.done_ps, read_done.done_ps);
  EXPECT_EQ(p.stats().reads_from_write_queue, 1u);
  EXPECT_EQ(p.stats().read_bursts, 0u);
  EXPECT_EQ(p.stats().write_bursts, 1u);
}

TEST_P(DramQueues, TheFrontEndLatencyComesBeforeTheQueue) {
  DramProbe p(GetParam(), "controller: {frontend_latency: 7}");
  const target::DramTiming& t = p.desc.timing;
  p.serve_one(p.at(0, 0, 5, 0), 100);
  EXPECT_EQ(p.serve_one(p.at(0, 0, 5, 1), 1000), 7 + n(t.tCL) + p.burst);
  DramClock clock(p.desc.clock_mhz);
  EXPECT_EQ(p.model->read_hit_latency_ps(), clock.to_ps(7 + n(t.tCL) + p.burst));
}

// Whatever arrives later, what was decided before it arrived stays: the first group's accesses
// that complete before the second group's arrival complete at the same times with or without
// it, and the second group's bursts still compete for the rest.
TEST_P(DramQueues, ALaterArrivalChangesNothingDecidedBeforeIt) {
  const target::DramDesc desc = load_preset(GetParam());
  const std::vector<Access> first = random_reads(desc, 400);
  std::vector<Access> second = random_reads(desc, 500);
  second.erase(second.begin(), second.begin() + 400);
  const std::unique_ptr<DramModel> alone = make_dram_model(desc);
  const GroupResult a = alone->serve(first, 0);
  const Picoseconds later = a.done_ps / 2;
  const std::unique_ptr<DramModel> both = make_dram_model(desc);
  const GroupId id = both->submit(first, 0);
  const GroupId next = both->submit(second, later);
  const GroupResult b = both->complete(id);
  both->complete(next);
  std::size_t before = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (a.access_done_ps[i] >= later) continue;
    EXPECT_EQ(b.access_done_ps[i], a.access_done_ps[i]) << "access " << i;
    ++before;
  }
  EXPECT_GT(before, 50u);
  EXPECT_GT(b.done_ps, a.done_ps);  // the later group's reads took slots the first one wanted
}

// A group handed over later but arriving earlier (a copy from host memory reaches the DRAM a
// link latency after it is handed over) enters first.
TEST_P(DramQueues, GroupsEnterInArrivalOrderWhateverTheCallOrder) {
  DramProbe p(GetParam());
  const target::DramTiming& t = p.desc.timing;
  const DramClock clock(p.desc.clock_mhz);
  const GroupId late = p.model->submit({p.at(0, 0, 4, 0)}, clock.to_ps(1000));
  const GroupId early = p.model->submit({p.at(0, 0, 3, 0)}, clock.to_ps(100));
  EXPECT_EQ(clock.to_cycle(p.model->complete(early).done_ps) - 100, n(t.tRCD) + n(t.tCL) + p.burst);
  EXPECT_EQ(clock.to_cycle(p.model->complete(late).done_ps) - 1000,
            n(t.tRP) + n(t.tRCD) + n(t.tCL) + p.burst);
}

// Runs of row hits at the column floor are decided by a short path (JedecModel::set_hit_runs);
// it must decide exactly what the general path decides. Tile-like groups of sequential runs
// (where the short path takes most decisions), interleaved reads and writes, overlapping
// arrivals (later groups enter while a run is going on, in either direction) and long idle
// gaps (refresh), several groups in flight at once: every completion and every count agrees.
// With the preset's queues and with small ones, where a burst's ready time (the cycle its slot
// was freed) holds it back.
void expect_hit_runs_match(const target::DramDesc& desc, const std::string& label) {
  JedecModel fast(desc, "jedec");
  JedecModel general(desc, "jedec");
  general.set_hit_runs(false);
  std::mt19937_64 rng(7);  // fixed seed: the test is deterministic
  const uint64_t tensors[] = {0, desc.capacity_bytes / 3 + 4096, desc.capacity_bytes / 2 + 640};
  Picoseconds now = 0;
  std::vector<GroupId> in_flight;
  uint64_t accesses = 0;
  for (int g = 0; g < 400; ++g) {
    std::vector<Access> group;
    const AccessKind kind = rng() % 3 == 0 ? AccessKind::Write : AccessKind::Read;
    const uint64_t base = tensors[rng() % 3] + (rng() % 4096) * 64;
    // Rows of a tile: contiguous or a few bursts apart.
    const uint64_t rows = 1 + rng() % 24, bytes = 64 * (1 + rng() % 64);
    const uint64_t stride = bytes + 64 * (rng() % 3);
    for (uint64_t r = 0; r < rows; ++r) {
      // Mostly one direction per group, sometimes a copy's read and write side by side.
      const AccessKind other = kind == AccessKind::Read ? AccessKind::Write : AccessKind::Read;
      group.push_back({base + r * stride, bytes, rng() % 8 == 0 ? other : kind});
    }
    accesses += group.size();
    const GroupId a = fast.submit(group, now);
    ASSERT_EQ(general.submit(group, now), a);
    in_flight.push_back(a);
    // Complete the oldest groups now and then, so several are in flight together.
    while (in_flight.size() > 1 + rng() % 4) {
      const GroupResult x = fast.complete(in_flight.front());
      const GroupResult y = general.complete(in_flight.front());
      ASSERT_EQ(x.access_done_ps, y.access_done_ps) << label << " group " << in_flight.front();
      in_flight.erase(in_flight.begin());
      now = std::max(now, x.done_ps / 2);
    }
    now += rng() % 16 == 0 ? 20'000'000 : static_cast<Picoseconds>(rng() % 200'000);
  }
  for (const GroupId id : in_flight)
    ASSERT_EQ(fast.complete(id).access_done_ps, general.complete(id).access_done_ps) << label;
  const DramStats& a = fast.stats();
  const DramStats& b = general.stats();
  expect_same_stats(a, b, label);
  EXPECT_GT(a.row_hits, 10 * a.row_conflicts) << label;  // the traffic is mostly runs of hits
  EXPECT_GT(a.refreshes, 0u) << label;
  EXPECT_GT(accesses, 2000u) << label;
}

TEST_P(DramQueues, HitRunsDecideWhatTheGeneralPathDecides) {
  expect_hit_runs_match(load_preset(GetParam()), GetParam());
  expect_hit_runs_match(load_preset(GetParam(),
                                    "controller: {read_queue: 4, write_queue: 6, "
                                    "write_high_watermark: 4, "
                                    "write_low_watermark: 1}"),
                        std::string(GetParam()) + " with small queues");
}

INSTANTIATE_TEST_SUITE_P(Presets, DramQueues, ::testing::Values("DDR4-3200", "LPDDR4-4266", "HBM2"),
                         [](const ::testing::TestParamInfo<std::string>& preset) {
                           return preset_test_name(preset.param);
                         });

}  // namespace
}  // namespace s2::sim::dram
