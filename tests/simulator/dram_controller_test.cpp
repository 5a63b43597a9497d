// The memory controller's choices (dram.controller): scheduler, row policy and address
// mapping, each held to what the preset's timings predict, on every shipped preset. The
// defaults (frfcfs, open, the default order) are what dram_timing_test.cpp probes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dram_test_util.h"
#include "isa/common/errors.h"
#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/dram_registry.h"

namespace s2::sim::dram {
namespace {

using Probe = DramProbe;

class DramController : public ::testing::TestWithParam<std::string> {};

// ---- row policy ----------------------------------------------------------------------------

TEST_P(DramController, ClosedPageTurnsALaterHitIntoAMiss) {
  for (const char* policy : {"open", "closed"}) {
    Probe p(GetParam(), std::string("controller: {row_policy: ") + policy + "}");
    EXPECT_EQ(p.serve_one(p.at(0, 0, 5, 0), 100), n(p.t.tRCD) + n(p.t.tCL) + p.burst);
    const int64_t again = p.serve_one(p.at(0, 0, 5, 1), 1000);
    if (std::string(policy) == "open") {
      EXPECT_EQ(again, n(p.t.tCL) + p.burst);
      EXPECT_EQ(p.stats().row_hits, 1u);
      EXPECT_EQ(p.stats().precharges, 0u);
    } else {
      EXPECT_EQ(again, n(p.t.tRCD) + n(p.t.tCL) + p.burst);
      EXPECT_EQ(p.stats().row_misses, 2u);
      EXPECT_EQ(p.stats().precharges, 2u);
    }
  }
}

TEST_P(DramController, ClosedPageTurnsALaterConflictIntoAMiss) {
  for (const char* policy : {"open", "closed"}) {
    Probe p(GetParam(), std::string("controller: {row_policy: ") + policy + "}");
    p.serve_one(p.at(0, 0, 5, 0), 100);
    const int64_t other_row = p.serve_one(p.at(0, 0, 6, 0), 1000);
    const bool open = std::string(policy) == "open";
    EXPECT_EQ(other_row, (open ? n(p.t.tRP) : 0) + n(p.t.tRCD) + n(p.t.tCL) + p.burst) << policy;
    EXPECT_EQ(p.stats().row_conflicts, open ? 1u : 0u) << policy;
  }
}

// The auto-precharge waits for tRAS after the ACT and tRTP after the read, and the next ACT
// of the bank for tRP after it and tRC after the first ACT.
TEST_P(DramController, ClosedPagePrechargeRespectsTrasTrtpAndTrc) {
  Probe p(GetParam(), "controller: {row_policy: closed}");
  const int64_t first = p.serve_one(p.at(0, 1, 5, 0), 100);
  const int64_t arrival = 100 + first;
  const int64_t pre = 100 + std::max(n(p.t.tRAS), n(p.t.tRCD) + n(p.t.tRTP));
  const int64_t act = std::max({arrival, pre + n(p.t.tRP), 100 + n(p.t.tRC)});
  EXPECT_EQ(p.serve_one(p.at(0, 1, 5, 1), arrival),
            act - arrival + n(p.t.tRCD) + n(p.t.tCL) + p.burst);
}

// A row that queued bursts still want stays open for them: one ACT and one PRE for four.
TEST_P(DramController, ClosedPageKeepsTheRowForQueuedBursts) {
  Probe p(GetParam(), "controller: {row_policy: closed}");
  p.serve({p.at(0, 2, 7, 0), p.at(0, 2, 7, 1), p.at(0, 2, 7, 2), p.at(0, 2, 7, 3)}, 100);
  EXPECT_EQ(p.stats().activates, 1u);
  EXPECT_EQ(p.stats().row_hits, 3u);
  EXPECT_EQ(p.stats().precharges, 1u);
}

// ---- scheduler -----------------------------------------------------------------------------

// Eight bursts alternating between two rows of one bank, arriving together. FCFS serves them
// in order, so each after the first is a conflict, one row cycle apart: PRE no earlier than
// tRAS after the ACT and tRTP after the read, ACT tRP after the PRE and tRC after the last ACT.
// FR-FCFS serves the four hits of the open row first and conflicts once.
TEST_P(DramController, FcfsServesInOrderAndFrFcfsTakesRowHitsFirst) {
  std::vector<int64_t> last;
  for (const char* scheduler : {"fcfs", "frfcfs"}) {
    Probe p(GetParam(), std::string("controller: {scheduler: ") + scheduler + "}");
    std::vector<Access> group;
    for (uint32_t i = 0; i < 8; ++i)
      group.push_back(p.at(0, 3, 5 + i % 2, i / 2));
    const std::vector<int64_t> latency = p.serve(group, 100);
    last.push_back(*std::max_element(latency.begin(), latency.end()));
    const int64_t row_cycle =
        std::max({n(p.t.tRC), n(p.t.tRAS) + n(p.t.tRP), n(p.t.tRCD) + n(p.t.tRTP) + n(p.t.tRP)});
    if (std::string(scheduler) == "fcfs") {
      EXPECT_EQ(p.stats().row_conflicts, 7u);
      for (std::size_t i = 0; i < latency.size(); ++i)
        EXPECT_EQ(latency[i],
                  static_cast<int64_t>(i) * row_cycle + n(p.t.tRCD) + n(p.t.tCL) + p.burst)
            << i;
    } else {
      EXPECT_EQ(p.stats().row_conflicts, 1u);
      EXPECT_EQ(p.stats().row_hits, 6u);
    }
  }
  EXPECT_LT(last[1] * 2, last[0]) << "FR-FCFS should more than halve FCFS's time here";
}

// A conflict whose bank's open row no queued burst wants competes by age once its PRE and ACT
// fit: it goes as soon as its column slot comes, ahead of the younger row hits that would have
// taken that slot too (rule 2 of jedec_model.h). While a queued burst still wants the open
// row, the conflict waits for it instead of closing the row under it.
TEST_P(DramController, AConflictNobodysRowWantsGoesByAge) {
  for (const bool row_wanted : {false, true}) {
    SCOPED_TRACE(row_wanted ? "the open row is wanted" : "the open row is not wanted");
    Probe p(GetParam());
    // The hits alternate between two bank groups where there are three, so that one of them
    // can take every column slot (the same group's next must wait tCCD_L).
    const uint32_t ga = p.desc.bank_groups > 1 ? 1 : 0;
    const uint32_t gb = p.desc.bank_groups > 2 ? 2 : ga;
    p.serve({p.at(0, 0, 5, 0), p.at(ga, 1, 7, 0), p.at(gb, 2, 7, 0)}, 100);  // rows opened
    std::vector<Access> group = {p.at(0, 0, 6, 0)};                          // the conflict, oldest
    for (uint32_t i = 0; i < 32; ++i)
      group.push_back(i % 2 == 0 ? p.at(ga, 1, 7, 1 + i / 2) : p.at(gb, 2, 7, 1 + i / 2));
    if (row_wanted) group.push_back(p.at(0, 0, 5, 1));  // a hit on the conflict's open row
    // Arriving once the openings are over, well before the first refresh closes the rows.
    const std::vector<int64_t> latency = p.serve(group, 1000);
    const int64_t last_hit = *std::max_element(latency.begin() + 1, latency.begin() + 33);
    EXPECT_EQ(p.stats().row_conflicts, 1u);
    if (row_wanted) {
      EXPECT_GT(latency[0], latency.back()) << "the wanted row was closed under its hit";
    } else {
      EXPECT_LT(latency[0], last_hit);
      // Its column slot comes within one column spacing of its PRE, ACT and tRCD.
      EXPECT_LE(latency[0], n(p.t.tRP) + n(p.t.tRCD) + n(p.t.tCL) + p.burst +
                                std::max(n(p.t.tCCD_S), n(p.t.tCCD_L)));
    }
  }
}

// ---- address mapping -----------------------------------------------------------------------

// Every order is a bijection between bursts and coordinates, and the lowest field steps first.
TEST_P(DramController, EveryAddressOrderDecodesWhatItEncodes) {
  for (const char* order : {"[row, rank, bank, column, bank_group, channel]",
                            "[row, column, rank, bank, bank_group, channel]",
                            "[channel, row, rank, bank, column, bank_group]",
                            "[bank_group, channel, rank, row, bank, column]"}) {
    const target::DramDesc desc = load_preset(
        GetParam(), std::string("channels: 3, controller: {address_mapping: ") + order + "}");
    const AddressMapping mapping(desc);
    for (uint64_t b : {uint64_t{0}, uint64_t{1}, uint64_t{77}, uint64_t{123457},
                       mapping.bursts() / 2 + 5, mapping.bursts() - 1}) {
      const DramAddress a = mapping.decode_burst(b);
      EXPECT_EQ(mapping.encode(a), b * mapping.burst_bytes()) << order << " burst " << b;
    }
  }
  const target::DramDesc desc =
      load_preset(GetParam(),
                  "channels: 2, controller: {address_mapping: [row, rank, bank, column, channel, "
                  "bank_group]}");
  const AddressMapping mapping(desc);
  EXPECT_EQ(mapping.run_length(), desc.bank_groups);
  EXPECT_EQ(mapping.decode_burst(desc.bank_groups).channel, 1u);
  EXPECT_EQ(mapping.decode_burst(desc.bank_groups).bank_group, 0u);
}

// A 4 KiB sequential read over two channels: the default order puts half the bursts on each
// channel's bus; with the channel the highest field every burst lands on channel 0, so the
// one bus carries all of them and it takes at least twice as long.
TEST_P(DramController, ChannelHighestLoadsOneChannel) {
  std::vector<int64_t> done;
  for (const char* order : {"[row, rank, bank, column, bank_group, channel]",
                            "[channel, row, rank, bank, column, bank_group]"}) {
    Probe p(GetParam(), std::string("channels: 2, controller: {address_mapping: ") + order + "}");
    const uint64_t bursts = 4096 / p.desc.burst_bytes();
    const std::vector<int64_t> latency = p.serve({Access{0, 4096, AccessKind::Read}}, 100);
    done.push_back(latency[0]);
    const auto per_channel = static_cast<int64_t>(done.size() == 1 ? bursts / 2 : bursts);
    EXPECT_GE(latency[0], n(p.t.tRCD) + n(p.t.tCL) + per_channel * p.burst) << order;
    EXPECT_LE(latency[0], n(p.t.tRCD) + n(p.t.tCL) + per_channel * p.burst + 8 * n(p.t.tRRD_L))
        << order;
  }
  EXPECT_GT(done[1], done[0]);
}

// With the column just above the channel, a stream's consecutive bursts on a channel stay in
// one bank group, so its column commands are tCCD_L apart instead of alternating groups at
// tCCD_S: on a device with bank groups (tCCD_L > burst) the stream slows to tCCD_L per burst.
TEST_P(DramController, ColumnBelowBankGroupPaysCcdLong) {
  Probe p(GetParam(),
          "controller: {address_mapping: [row, rank, bank, bank_group, column, "
          "channel]}");
  const uint64_t channels = p.desc.channels;
  const uint64_t per_channel = 32;
  const uint64_t bytes = per_channel * channels * p.desc.burst_bytes();
  const int64_t latency = p.serve({Access{0, bytes, AccessKind::Read}}, 100)[0];
  const int64_t spacing = std::max(n(p.t.tCCD_L), p.burst);
  EXPECT_EQ(latency, n(p.t.tRCD) + n(p.t.tCL) + n(per_channel - 1) * spacing + p.burst);
}

// ---- address hash --------------------------------------------------------------------------

// The hashed mapping is a bijection too, for power-of-two radices (XOR) and others (addition).
TEST_P(DramController, XorHashDecodesWhatItEncodes) {
  for (const char* more : {"channels: 2", "channels: 3",
                           "channels: 3, controller: {address_mapping: [row, column, rank, bank, "
                           "bank_group, channel]}",
                           "channels: 2, controller: {address_mapping: [channel, row, rank, "
                           "bank, column, bank_group]}"}) {
    const std::string keys =
        std::string(more).find("controller") == std::string::npos
            ? std::string(more) + ", controller: {address_hash: xor}"
            : std::string(more).insert(std::string(more).size() - 1, ", address_hash: xor");
    const target::DramDesc desc = load_preset(GetParam(), keys);
    const AddressMapping mapping(desc);
    ASSERT_TRUE(mapping.hashed()) << keys;
    for (uint64_t b = 0; b < 5000; ++b)
      ASSERT_EQ(mapping.encode(mapping.decode_burst(b)), b * mapping.burst_bytes())
          << keys << " burst " << b;
    for (uint64_t b : {uint64_t{123457}, mapping.bursts() / 2 + 5, mapping.bursts() - 1})
      EXPECT_EQ(mapping.encode(mapping.decode_burst(b)), b * mapping.burst_bytes()) << keys;
    // first_in_channel() finds each channel's bursts in order.
    for (uint32_t c = 0; c < desc.channels; ++c) {
      uint64_t expected = 0;
      while (mapping.decode_burst(expected).channel != c)
        ++expected;
      EXPECT_EQ(mapping.first_in_channel(c, 0), expected) << keys << " channel " << c;
    }
  }
}

// Issue 18 point 2: a stride of one DRAM row lands on one channel and one bank group under the
// default mapping, and on every channel and bank group equally under the XOR hash; so does any
// power-of-two stride.
TEST_P(DramController, XorHashSpreadsPowerOfTwoStrides) {
  for (const char* hash : {"none", "xor"}) {
    const target::DramDesc desc = load_preset(
        GetParam(), std::string("channels: 2, controller: {address_hash: ") + hash + "}");
    const AddressMapping mapping(desc);
    for (uint64_t stride = desc.row_size_bytes; stride <= uint64_t{1} << 24; stride *= 4) {
      std::vector<int> channels(desc.channels), groups(desc.bank_groups);
      const uint64_t count = 16 * desc.channels * desc.bank_groups;
      for (uint64_t k = 0; k < count; ++k) {
        const DramAddress a = mapping.decode(k * stride);
        ++channels[a.channel];
        ++groups[a.bank_group];
      }
      if (std::string(hash) == "none") {
        EXPECT_EQ(channels[0], static_cast<int>(count)) << "stride " << stride;
        EXPECT_EQ(groups[0], static_cast<int>(count)) << "stride " << stride;
      } else {
        for (int c : channels)
          EXPECT_EQ(c, static_cast<int>(count / desc.channels)) << "stride " << stride;
        for (int g : groups)
          EXPECT_EQ(g, static_cast<int>(count / desc.bank_groups)) << "stride " << stride;
      }
    }
  }
}

// The model serves every burst once under the hash: a sequential stream keeps its time (the
// hash permutes channels and bank groups within blocks), and 256 one-burst reads on two
// channels at the stride by which the default mapping moves to the next bank (one row of every
// channel and bank group: each read opens a row) use both channels and every bank group
// instead of one. (At a stride of one row, two LPDDR4 reads share a row without the hash and
// not with it: the hash trades those row hits for the second channel, and takes as long.)
TEST_P(DramController, XorHashKeepsStreamsAndSpeedsUpRowStrides) {
  std::vector<int64_t> stream, strided;
  for (const char* hash : {"none", "xor"}) {
    Probe p(GetParam(), std::string("channels: 2, controller: {address_hash: ") + hash + "}");
    stream.push_back(p.serve({Access{1 << 20, 256 * 1024, AccessKind::Read}}, 100)[0]);
    std::vector<Access> reads;
    for (uint64_t k = 0; k < 256; ++k)
      reads.push_back(Access{(64u << 20) + k * p.desc.row_size_bytes * 2 * p.desc.bank_groups,
                             p.desc.burst_bytes(), AccessKind::Read});
    const std::vector<int64_t> latency = p.serve(reads, 1000000);
    strided.push_back(*std::max_element(latency.begin(), latency.end()));
    EXPECT_EQ(p.stats().read_bursts, 256 * 1024 / p.desc.burst_bytes() + 256) << hash;
  }
  EXPECT_LE(stream[1], stream[0] + stream[0] / 50) << "the hash slows a sequential stream";
  EXPECT_LT(strided[1] * 10, strided[0] * 7) << "the hash should use both channels";
}

// Under the hash each channel's controller still finds exactly its bursts (the cursor walks a
// channel's runs block by block): random groups on three channels, in three field orders,
// move every burst once, and the data buses carry exactly those bursts.
TEST_P(DramController, XorHashServesEveryBurstOnce) {
  for (const char* order : {"[row, rank, bank, column, bank_group, channel]",
                            "[row, column, rank, bank, bank_group, channel]",
                            "[row, rank, bank, column, channel, bank_group]"}) {
    Probe p(GetParam(), std::string("channels: 3, controller: {address_hash: xor, "
                                    "address_mapping: ") +
                            order + "}");
    std::mt19937 rng(7);
    uint64_t bursts = 0;
    for (int group = 0; group < 20; ++group) {
      std::vector<Access> accesses;
      for (int i = 0; i < 16; ++i) {
        const uint64_t address = std::uniform_int_distribution<uint64_t>(0, 1u << 30)(rng);
        const uint64_t bytes = std::uniform_int_distribution<uint64_t>(1, 8192)(rng);
        accesses.push_back(Access{address, bytes, AccessKind::Read});
        bursts += bursts_of(accesses.back(), p.desc.burst_bytes());
      }
      for (int64_t latency : p.serve(accesses, 100000 * (group + 1)))
        EXPECT_GT(latency, 0) << order;
    }
    EXPECT_EQ(p.stats().read_bursts, bursts) << order;
    EXPECT_EQ(p.stats().row_hits + p.stats().row_misses + p.stats().row_conflicts, bursts) << order;
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, DramController,
                         ::testing::Values("DDR4-3200", "LPDDR4-4266", "HBM2"));

// ---- configuration -------------------------------------------------------------------------

std::string dram_error(const std::string& more) {
  try {
    load_preset("DDR4-3200", more);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DramControllerConfig, DefaultsAreTheControllerOfEveryEarlierResult) {
  const target::DramControllerDesc c = load_preset("DDR4-3200").controller;
  EXPECT_EQ(c.scheduler, target::DramScheduler::FrFcfs);
  EXPECT_EQ(c.row_policy, target::RowPolicy::Open);
  EXPECT_EQ(c.address_mapping, target::kDefaultAddressOrder);
  EXPECT_EQ(c.address_hash, target::AddressHash::None);
}

TEST(DramControllerConfig, BadChoicesNameTheKeyAndTheChoices) {
  EXPECT_EQ(dram_error("controller: {scheduler: fifo}"),
            "probe.yaml:11: dram.controller.scheduler: unknown value \"fifo\"; allowed: frfcfs, "
            "fcfs");
  EXPECT_EQ(dram_error("controller: {row_policy: adaptive}"),
            "probe.yaml:11: dram.controller.row_policy: unknown value \"adaptive\"; allowed: "
            "open, closed");
  EXPECT_EQ(dram_error("controller: {address_mapping: [row, bank, column, channel]}"),
            "probe.yaml:11: dram.controller.address_mapping: must list each of the 6 names once; "
            "missing: rank, bank_group");
  EXPECT_EQ(dram_error("controller: {address_mapping: [row, row]}"),
            "probe.yaml:11: dram.controller.address_mapping[1]: \"row\" is listed twice");
  EXPECT_EQ(dram_error("controller: {page: open}"),
            "probe.yaml:11: dram.controller.page: unknown key; known keys: scheduler, "
            "row_policy, address_mapping, address_hash, read_queue, write_queue, "
            "write_high_watermark, write_low_watermark, frontend_latency");
  EXPECT_EQ(dram_error("controller: {address_hash: crc}"),
            "probe.yaml:11: dram.controller.address_hash: unknown value \"crc\"; allowed: none, "
            "xor");
}

}  // namespace
}  // namespace s2::sim::dram
