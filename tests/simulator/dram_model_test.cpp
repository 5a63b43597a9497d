// The DRAM model's plumbing: the registry (backend names from presets, unknown names), the
// address mapping (documented field order, round trip), the ps <-> DRAM-cycle clock, and the
// serve() contract (per-access completion, statistics, capacity errors, persistence).

#include "simulator/dram/dram_model.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dram_test_util.h"
#include "isa/common/errors.h"
#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_registry.h"
#include "simulator/dram/load_target.h"

namespace s2::sim::dram {
namespace {

TEST(DramRegistry, PresetFamilyNamesTheBackend) {
  EXPECT_EQ(load_preset("DDR4-3200").backend, "ddr4");
  EXPECT_EQ(load_preset("LPDDR4-4266").backend, "lpddr4");
  EXPECT_EQ(load_preset("HBM2").backend, "hbm2");
  EXPECT_EQ(make_dram_model(load_preset("HBM2"))->backend(), "hbm2");
  target::DramDesc jedec = load_preset("DDR4-3200");
  jedec.backend = "jedec";
  EXPECT_EQ(make_dram_model(jedec)->backend(), "jedec");
}

TEST(DramRegistry, UnknownBackendListsTheKnownOnes) {
  target::DramDesc desc = load_preset("DDR4-3200");
  desc.backend = "ddr5";
  try {
    make_dram_model(desc);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown DRAM backend 'ddr5'; known: ddr4, hbm2, jedec, lpddr4");
  }
}

TEST(DramRegistry, BackendsAreListedSorted) {
  EXPECT_EQ(dram_backend_registry().names(),
            (std::vector<std::string>{"ddr4", "hbm2", "jedec", "lpddr4"}));
}

TEST(AddressMapping, ConsecutiveBurstsGoChannelThenBankGroupThenColumn) {
  const target::DramDesc hbm = load_preset("HBM2");  // 8 channels, 4 groups, 32 bursts per row
  const AddressMapping m(hbm);
  const uint64_t b = hbm.burst_bytes();
  EXPECT_EQ(m.decode(0 * b).channel, 0u);
  EXPECT_EQ(m.decode(7 * b).channel, 7u);
  EXPECT_EQ(m.decode(8 * b).channel, 0u);
  EXPECT_EQ(m.decode(8 * b).bank_group, 1u);
  EXPECT_EQ(m.decode(8 * 4 * b).column, 1u);
  EXPECT_EQ(m.decode(8 * 4 * b).bank_group, 0u);
  const uint64_t row_span = 8ull * 4 * 32 * b;  // every channel and group through one row
  EXPECT_EQ(m.decode(row_span).bank, 1u);
  EXPECT_EQ(m.decode(row_span).column, 0u);
  EXPECT_EQ(m.decode(row_span * 4).row, 1u);  // after the 4 banks of each group
  EXPECT_EQ(m.decode(63).channel, 0u);        // within the first burst
}

TEST(AddressMapping, EncodeIsTheInverseOfDecode) {
  for (const char* preset : {"DDR4-3200", "LPDDR4-4266", "HBM2"}) {
    const target::DramDesc desc = load_preset(preset);
    const AddressMapping m(desc);
    for (uint64_t burst :
         std::vector<uint64_t>{0, 1, 12345, 987654321 % m.bursts(), m.bursts() - 1}) {
      const DramAddress a = m.decode_burst(burst);
      EXPECT_EQ(m.encode(a), burst * desc.burst_bytes()) << preset << " burst " << burst;
    }
    EXPECT_EQ(m.decode_burst(m.bursts() - 1).row, desc.rows_per_bank - 1) << preset;
  }
}

// The burst cursor divides by the burst size and by a block of every channel's run through
// Divisor: by a shift when the divisor is a power of two, else by division.
TEST(AddressMapping, DivisorAgreesWithDivision) {
  for (const uint64_t d :
       std::vector<uint64_t>{1, 2, 3, 32, 48, 64, 96, 1ull << 20, (1ull << 40) + 1, 1ull << 63}) {
    const Divisor by(d);
    for (const uint64_t x :
         std::vector<uint64_t>{0, 1, d - 1, d, d + 1, 3 * d + 2, 12345678901234ull, ~uint64_t{0}})
      EXPECT_EQ(by(x), x / d) << x << " / " << d;
  }
}

TEST(DramClock, EdgesRoundTripAtNonIntegerPeriods) {
  const DramClock lpddr4(2133);  // tCK = 468.82... ps
  for (int64_t c : std::vector<int64_t>{0, 1, 2, 3, 7, 1000, 2133000, 123456789, 40000000000}) {
    EXPECT_EQ(lpddr4.to_cycle(lpddr4.to_ps(c)), c) << c;
  }
  EXPECT_EQ(lpddr4.to_ps(1), 469u);
  EXPECT_EQ(lpddr4.to_cycle(1), 1);    // between edges 0 and 1: the next edge
  EXPECT_EQ(lpddr4.to_cycle(470), 2);  // just after edge 1
  const DramClock ddr4(1600);
  EXPECT_EQ(ddr4.to_ps(16), 10000u);
  EXPECT_DOUBLE_EQ(ddr4.period_ps(), 625.0);
}

TEST(DramModel, ReportsPerAccessCompletionAndCountsBytes) {
  const target::DramDesc desc = load_preset("DDR4-3200");
  const std::unique_ptr<DramModel> model = make_dram_model(desc);
  const Picoseconds arrival = 1'000'000;
  const GroupResult r = model->serve(
      {{0, 4096, AccessKind::Read}, {1 << 20, 100, AccessKind::Write}, {4096, 0, AccessKind::Read}},
      arrival);
  ASSERT_EQ(r.access_done_ps.size(), 3u);
  EXPECT_GT(r.access_done_ps[0], arrival);
  EXPECT_GT(r.access_done_ps[1], arrival);
  EXPECT_EQ(r.access_done_ps[2], arrival);  // zero bytes: done on arrival
  EXPECT_EQ(r.done_ps, std::max(r.access_done_ps[0], r.access_done_ps[1]));
  const DramStats& s = model->stats();
  EXPECT_EQ(s.bytes_read, 4096u);
  EXPECT_EQ(s.bytes_written, 100u);
  EXPECT_EQ(s.read_bursts, 64u);
  EXPECT_EQ(s.write_bursts, 2u);  // 100 bytes round out to two 64-byte bursts
  EXPECT_EQ(s.row_hits + s.row_misses + s.row_conflicts, 66u);
  EXPECT_EQ(s.last_done_ps, r.done_ps);
  // 66 bursts of 4 cycles at 625 ps.
  EXPECT_EQ(s.data_bus_busy_ps, 66u * 4 * 625);
  EXPECT_DOUBLE_EQ(model->peak_bandwidth_bytes_per_s(), 25.6e9);
  EXPECT_EQ(model->burst_bytes(), 64u);
}

TEST(DramModel, BankStatePersistsAcrossGroups) {
  const std::unique_ptr<DramModel> model = make_dram_model(load_preset("DDR4-3200"));
  model->serve({{0, 64, AccessKind::Read}}, 0);
  model->serve({{256, 64, AccessKind::Read}}, 1'000'000);  // same bank group, row and bank
  EXPECT_EQ(model->stats().row_misses, 1u);
  EXPECT_EQ(model->stats().row_hits, 1u);
}

TEST(DramModel, AGroupArrivingWhileAnotherIsInFlightWaitsBehindIt) {
  const std::unique_ptr<DramModel> model = make_dram_model(load_preset("DDR4-3200"));
  const GroupResult first = model->serve({{0, 1 << 20, AccessKind::Read}}, 0);
  const GroupResult second = model->serve({{2 << 20, 64, AccessKind::Read}}, 1000);
  EXPECT_GT(second.done_ps, first.done_ps);
}

TEST(DramModel, IsDeterministic) {
  const target::DramDesc desc = load_preset("HBM2");
  std::vector<Access> group;
  for (uint64_t i = 0; i < 2000; ++i) {
    group.push_back({(i * 2654435761u) % (desc.capacity_bytes / 64) * 64, 64,
                     i % 3 == 0 ? AccessKind::Write : AccessKind::Read});
  }
  const auto a = make_dram_model(desc);
  const auto b = make_dram_model(desc);
  EXPECT_EQ(a->serve(group, 5000).access_done_ps, b->serve(group, 5000).access_done_ps);
  EXPECT_EQ(a->stats().row_conflicts, b->stats().row_conflicts);
}

// Channels are served on several threads when the model is allowed them: every completion and
// every count must be what one thread gives, for a row-hit stream, tile-shaped strided groups,
// random reads and writes, and groups too small to be handed to another thread, on 2 channels
// (the base configuration's DDR4) and 8 (HBM2, more channels than threads).
TEST(DramModel, ThreadsChangeNoResult) {
  for (const char* preset : {"DDR4-3200", "HBM2"}) {
    target::DramDesc desc = load_preset(preset);
    if (desc.channels < 2) desc.channels = 2;
    std::vector<std::vector<Access>> groups;
    groups.push_back({{0, 1 << 20, AccessKind::Read}});
    for (uint64_t t = 0; t < 6; ++t) {
      std::vector<Access> tile;
      for (uint64_t row = 0; row < 128; ++row)
        tile.push_back({(t * 256 + row * 201028) % (desc.capacity_bytes / 2), 256,
                        t % 3 == 2 ? AccessKind::Write : AccessKind::Read});
      groups.push_back(tile);
    }
    std::vector<Access> random;
    for (uint64_t i = 0; i < 3000; ++i) {
      random.push_back({(i * 2654435761u) % (desc.capacity_bytes / 64) * 64, 64,
                        i % 3 == 0 ? AccessKind::Write : AccessKind::Read});
    }
    groups.push_back(random);
    groups.push_back({{4096, 128, AccessKind::Write}, {1 << 24, 64, AccessKind::Read}});
    const auto one = make_dram_model(desc);
    const auto several = make_dram_model(desc);
    several->set_threads(3);
    Picoseconds arrival = 0;
    for (const std::vector<Access>& g : groups) {
      const GroupResult a = one->serve(g, arrival);
      const GroupResult b = several->serve(g, arrival);
      EXPECT_EQ(a.access_done_ps, b.access_done_ps) << preset;
      EXPECT_EQ(a.done_ps, b.done_ps) << preset;
      arrival = a.done_ps / 2;
    }
    const DramStats& x = one->stats();
    const DramStats& y = several->stats();
    EXPECT_GT(x.row_conflicts, 0u) << preset;
    EXPECT_GT(x.write_bursts, 0u) << preset;
    expect_same_stats(x, y, preset);
  }
}

TEST(DramModel, AccessPastCapacityIsAUserError) {
  const target::DramDesc desc = load_preset("LPDDR4-4266");
  const std::unique_ptr<DramModel> model = make_dram_model(desc);
  try {
    model->serve({{desc.capacity_bytes - 32, 64, AccessKind::Read}}, 0);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("reach past the DRAM capacity of 536870912 bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(model->stats().read_bursts, 0u);  // nothing of the bad group was served
}

}  // namespace
}  // namespace s2::sim::dram
