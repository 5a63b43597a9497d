// Timing probes of the JEDEC DRAM model (simulator/dram/), in the style of Ramulator 2.0's
// tests/device_timings: each test sets up one situation and expects the latency that the
// datasheet numbers of the preset give, computed here from the preset's values (DDR4-3200 is
// 22-22-22 with tRAS 52, tFAW 34, ...; see configs/dram/*.yaml). Latencies are measured in DRAM
// clock cycles from a request's arrival (on a clock edge) to its last data beat.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dram_test_util.h"
#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/dram_registry.h"
#include "simulator/dram/jedec_channel.h"
#include "simulator/dram/load_target.h"

namespace s2::sim::dram {
namespace {

using Probe = DramProbe;

class DramTimingProbe : public ::testing::TestWithParam<std::string> {};

TEST_P(DramTimingProbe, ReadToClosedBankTakesRcdPlusClPlusBurst) {
  Probe p(GetParam());
  EXPECT_EQ(p.serve_one(p.at(0, 0, 5, 0), 100), n(p.t.tRCD) + n(p.t.tCL) + p.burst);
  EXPECT_EQ(p.model->stats().row_misses, 1u);
  EXPECT_EQ(p.model->stats().activates, 1u);
}

TEST_P(DramTimingProbe, ReadToOpenRowTakesClPlusBurst) {
  Probe p(GetParam());
  p.serve_one(p.at(0, 0, 5, 0), 100);
  EXPECT_EQ(p.serve_one(p.at(0, 0, 5, 3), 1000), n(p.t.tCL) + p.burst);
  EXPECT_EQ(p.model->stats().row_hits, 1u);
  EXPECT_EQ(p.model->stats().activates, 1u);
}

TEST_P(DramTimingProbe, WriteToOpenRowTakesCwlPlusBurst) {
  Probe p(GetParam());
  p.serve_one(p.at(0, 0, 5, 0), 100);
  EXPECT_EQ(p.serve_one(p.at(0, 0, 5, 1, AccessKind::Write), 1000), n(p.t.tCWL) + p.burst);
}

TEST_P(DramTimingProbe, RowConflictTakesRpPlusRcdPlusClPlusBurst) {
  Probe p(GetParam());
  p.serve_one(p.at(1, 1, 5, 0), 100);
  EXPECT_EQ(p.serve_one(p.at(1, 1, 6, 0), 1000), n(p.t.tRP) + n(p.t.tRCD) + n(p.t.tCL) + p.burst);
  EXPECT_EQ(p.model->stats().row_conflicts, 1u);
  EXPECT_EQ(p.model->stats().precharges, 1u);
}

TEST_P(DramTimingProbe, RowConflictRightAfterActivateWaitsForTrasAndTrc) {
  Probe p(GetParam());
  // Both arrive together: ACT row 5 at 0, PRE no earlier than tRAS after it, ACT row 6 no
  // earlier than tRP after the PRE and tRC after the first ACT.
  const std::vector<int64_t> latency = p.serve({p.at(0, 2, 5, 0), p.at(0, 2, 6, 0)}, 200);
  const int64_t second_act = std::max(n(p.t.tRAS) + n(p.t.tRP), n(p.t.tRC));
  EXPECT_EQ(latency[0], n(p.t.tRCD) + n(p.t.tCL) + p.burst);
  EXPECT_EQ(latency[1], second_act + n(p.t.tRCD) + n(p.t.tCL) + p.burst);
}

TEST_P(DramTimingProbe, ColumnCommandsAreSpacedByCcdShortAndLong) {
  Probe p(GetParam());
  // Open a row in bank groups 0 and (if any) 1, then read twice from the same group and twice
  // from different groups (all before the first refresh: HBM2's tREFI is 3900).
  const uint32_t other_group = p.desc.bank_groups > 1 ? 1 : 0;
  p.serve({p.at(0, 0, 5, 0), p.at(other_group, 1, 5, 0)}, 100);
  const auto same = p.serve({p.at(0, 0, 5, 1), p.at(0, 0, 5, 2)}, 1000);
  EXPECT_EQ(same[1], n(p.t.tCCD_L) + n(p.t.tCL) + p.burst);
  const auto different = p.serve({p.at(0, 0, 5, 3), p.at(other_group, 1, 5, 3)}, 2000);
  EXPECT_EQ(different[1], n(other_group == 0 ? p.t.tCCD_L : p.t.tCCD_S) + n(p.t.tCL) + p.burst);
}

TEST_P(DramTimingProbe, ReadAfterWriteWaitsForWtrLongInSameBankGroup) {
  Probe p(GetParam());
  p.serve_one(p.at(0, 0, 5, 0), 100);
  // The write and the read arrive together but one after the other (in one group the
  // controller would serve the read first: it drains writes only in batches).
  EXPECT_EQ(p.serve_one(p.at(0, 0, 5, 1, AccessKind::Write), 2000), n(p.t.tCWL) + p.burst);
  EXPECT_EQ(p.serve_one(p.at(0, 0, 5, 2), 2000),
            n(p.t.tCWL) + p.burst + n(p.t.tWTR_L) + n(p.t.tCL) + p.burst);
}

TEST_P(DramTimingProbe, ReadAfterWriteWaitsForWtrShortAcrossBankGroups) {
  Probe p(GetParam());
  if (p.desc.bank_groups < 2) GTEST_SKIP() << GetParam() << " has no bank groups";
  p.serve({p.at(0, 0, 5, 0), p.at(1, 0, 5, 0)}, 100);
  p.serve_one(p.at(0, 0, 5, 1, AccessKind::Write), 2000);
  EXPECT_EQ(p.serve_one(p.at(1, 0, 5, 1), 2000),
            n(p.t.tCWL) + p.burst + n(p.t.tWTR_S) + n(p.t.tCL) + p.burst);
}

TEST_P(DramTimingProbe, WriteAfterReadLeavesTheBusTurnaround) {
  Probe p(GetParam());
  p.serve_one(p.at(0, 0, 5, 0), 100);
  const auto latency = p.serve({p.at(0, 0, 5, 1), p.at(0, 0, 5, 2, AccessKind::Write)}, 2000);
  // JEDEC RD->WR: the write's data starts 2 cycles after the read's data ends (RL + BL/2 - WL
  // + 2 between the commands), and never before tCCD_L after the read.
  const int64_t write_command = std::max(n(p.t.tCCD_L), n(p.t.tCL) + p.burst + 2 - n(p.t.tCWL));
  EXPECT_EQ(latency[1], write_command + n(p.t.tCWL) + p.burst);
}

TEST_P(DramTimingProbe, FifthActivateInsideTfawWaits) {
  Probe p(GetParam());
  if (n(p.t.tFAW) <= 4 * n(p.t.tRRD_S)) {
    GTEST_SKIP() << GetParam() << ": tFAW <= 4 tRRD_S, the window never throttles";
  }
  // Five row misses in five banks, bank groups taken in turn so consecutive ACTs need only
  // tRRD_S: ACTs at 0, tRRD_S, 2 tRRD_S, 3 tRRD_S, then the fifth waits for the first + tFAW.
  const uint32_t groups = p.desc.bank_groups;
  std::vector<Access> group;
  for (uint32_t i = 0; i < 5; ++i)
    group.push_back(p.at(i % groups, i / groups, 9, 0));
  const auto latency = p.serve(group, 300);
  const int64_t access = n(p.t.tRCD) + n(p.t.tCL) + p.burst;
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(latency[static_cast<size_t>(i)], i * n(p.t.tRRD_S) + access);
  int64_t fifth_act =
      std::max({4 * n(p.t.tRRD_S), n(p.t.tFAW), groups == 4 ? n(p.t.tRRD_L) : int64_t{0}});
  EXPECT_EQ(fifth_act, n(p.t.tFAW));  // the window, not tRRD, sets it
  // One command per cycle: if one of the first four RDs (ACT + tRCD) holds that cycle, the ACT
  // takes the next (DDR4-3200: tFAW 34 = 3 tRRD_S + tRCD).
  for (int64_t i = 0; i < 4; ++i) {
    if (i * n(p.t.tRRD_S) + n(p.t.tRCD) == fifth_act) ++fifth_act;
  }
  EXPECT_EQ(latency[4], fifth_act + access);
}

TEST_P(DramTimingProbe, RefreshBlocksTheRankForTrfcEveryTrefi) {
  Probe p(GetParam());
  const int64_t refi = n(p.t.tREFI);
  // Arriving when the first refresh falls due: the REF goes first (banks are closed, so it
  // starts on time) and the read's ACT waits tRFC.
  EXPECT_EQ(p.serve_one(p.at(0, 0, 1, 0), refi), n(p.t.tRFC) + n(p.t.tRCD) + n(p.t.tCL) + p.burst);
  EXPECT_EQ(p.model->stats().refreshes, 1u);
  // Just before the next one falls due: served at once.
  EXPECT_EQ(p.serve_one(p.at(1 % p.desc.bank_groups, 1, 1, 0), 2 * refi - 200),
            n(p.t.tRCD) + n(p.t.tCL) + p.burst);
  EXPECT_EQ(p.model->stats().refreshes, 1u);
  // Half an interval after the tenth: ten refreshes in all, the last long over.
  EXPECT_EQ(p.serve_one(p.at(0, 0, 1, 1), 10 * refi + refi / 2),
            n(p.t.tRCD) + n(p.t.tCL) + p.burst);
  EXPECT_EQ(p.model->stats().refreshes, 10u);
  // ... and refresh closed the row the first read had opened: that was a miss, not a hit.
  EXPECT_EQ(p.model->stats().row_hits, 0u);
  EXPECT_EQ(p.model->stats().row_misses, 3u);
}

TEST_P(DramTimingProbe, RefreshOfAnOpenBankWaitsForItsPrecharge) {
  Probe p(GetParam());
  const int64_t refi = n(p.t.tREFI);
  // ACT at tREFI - 10: the precharge-all cannot close the bank before tRAS after it.
  const int64_t act = refi - 10;
  p.serve_one(p.at(0, 0, 3, 0), act);
  const int64_t refresh_start = act + std::max(n(p.t.tRAS), n(p.t.tRCD) + n(p.t.tRTP)) + n(p.t.tRP);
  EXPECT_EQ(p.serve_one(p.at(0, 0, 3, 1), refi),
            refresh_start + n(p.t.tRFC) + n(p.t.tRCD) + n(p.t.tCL) + p.burst - refi);
}

// DDR4-3200's fifth ACT is due at tFAW = 34 = 3 tRRD_S + tRCD, the cycle of the fourth RD: on one
// command bus it takes the next cycle; with a row command bus of its own (command_buses: 2, as
// HBM has) it issues on time.
TEST(DramCommandBus, ARowBusOfItsOwnLetsAnActivateShareACycleWithARead) {
  for (const char* buses : {"command_buses: 1", "command_buses: 2"}) {
    DramProbe p("DDR4-3200", buses);
    std::vector<Access> group;
    for (uint32_t i = 0; i < 5; ++i)
      group.push_back(p.at(i % 4, i / 4, 9, 0));
    const int64_t access = n(p.t.tRCD) + n(p.t.tCL) + p.burst;
    ASSERT_EQ(3 * n(p.t.tRRD_S) + n(p.t.tRCD), n(p.t.tFAW));
    const int64_t shift = p.desc.command_buses == 1 ? 1 : 0;
    EXPECT_EQ(p.serve(group, 300)[4], n(p.t.tFAW) + shift + access) << buses;
  }
}

// The bus remembers the cycles taken in its window, in any order: a row command planned into the
// past (before the last column command) collides with the commands there, and a cycle after
// the latest taken one is free without a look (free_from()'s fast path).
TEST(DramCommandBus, CommandsTakenOutOfOrderAllCollide) {
  CommandBus bus;
  EXPECT_EQ(bus.free_from(0), 0);
  bus.take(100);
  bus.take(90);  // an ACT placed before the last column command
  bus.take(91);
  EXPECT_EQ(bus.free_from(89), 89);
  EXPECT_EQ(bus.free_from(90), 92);
  EXPECT_EQ(bus.free_from(99), 99);
  EXPECT_EQ(bus.free_from(100), 101);
  EXPECT_EQ(bus.free_from(101), 101);
  // A take far later slides the window past the old cycles: they no longer constrain.
  const int64_t later = 100 + 64 * CommandBus::kWords + 1;
  bus.take(later);
  EXPECT_EQ(bus.free_from(100), 100);
  EXPECT_EQ(bus.free_from(later), later + 1);
  EXPECT_EQ(bus.free_from(later - 1), later - 1);
}

INSTANTIATE_TEST_SUITE_P(Presets, DramTimingProbe,
                         ::testing::Values("DDR4-3200", "LPDDR4-4266", "HBM2"),
                         [](const ::testing::TestParamInfo<std::string>& preset) {
                           return preset_test_name(preset.param);
                         });

}  // namespace
}  // namespace s2::sim::dram
