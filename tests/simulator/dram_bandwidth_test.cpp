// Sustained-rate checks of the JEDEC DRAM model: a long sequential stream must reach at least
// 90% of each preset's peak bandwidth, and a random pattern of 64-byte reads the rate its
// timings predict. Expected rates are derived here from the preset's values.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dram_test_util.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/load_target.h"

namespace s2::sim::dram {
namespace {

double bytes_per_s(uint64_t bytes, Picoseconds elapsed_ps) {
  return static_cast<double>(bytes) / (static_cast<double>(elapsed_ps) * 1e-12);
}

// A stream of `total` bytes as back-to-back 64 KiB tiles, all queued at time 0.
double stream_rate(const std::string& preset, AccessKind kind, uint64_t total) {
  const std::unique_ptr<DramModel> model = make_dram_model(load_preset(preset));
  const uint64_t tile = 64 * 1024;
  Picoseconds done = 0;
  for (uint64_t address = 0; address < total; address += tile) {
    done = std::max(done, model->serve({{address, tile, kind}}, 0).done_ps);
  }
  return bytes_per_s(total, done);
}

class DramBandwidth : public ::testing::TestWithParam<std::string> {};

TEST_P(DramBandwidth, SequentialReadStreamReachesNinetyPercentOfPeak) {
  const target::DramDesc desc = load_preset(GetParam());
  const double rate = stream_rate(GetParam(), AccessKind::Read, 16u << 20);
  EXPECT_GE(rate, 0.90 * desc.peak_bandwidth_bytes_per_s()) << GetParam();
  EXPECT_LE(rate, desc.peak_bandwidth_bytes_per_s()) << GetParam();
}

TEST_P(DramBandwidth, SequentialWriteStreamReachesNinetyPercentOfPeak) {
  const target::DramDesc desc = load_preset(GetParam());
  const double rate = stream_rate(GetParam(), AccessKind::Write, 16u << 20);
  EXPECT_GE(rate, 0.90 * desc.peak_bandwidth_bytes_per_s()) << GetParam();
  EXPECT_LE(rate, desc.peak_bandwidth_bytes_per_s()) << GetParam();
}

// Random 64-byte reads over the whole capacity are nearly all row conflicts, so each one costs
// an ACT. Per rank of a channel, ACTs are limited by
//   bank cycling:  banks / tRC      (each bank opens a new row at most once per tRC)
//   tFAW:          4 / tFAW
//   tRRD_S:        1 / tRRD_S
// and the column side by the data bus: one access needs (64 B / burst size) bursts of
// BL/data-rate cycles each, and tCCD_S between column commands. The smallest of these is the
// rate in accesses per cycle per channel; all-bank refresh takes the fraction tRFC / tREFI off
// it. The model must stay under the bound without refresh and within 10% of the bound with it
// (the rest is lost to random bank collisions in a 32-entry queue).
struct RandomPrediction {
  double with_refresh;     // bytes/s
  double without_refresh;  // bytes/s
};

RandomPrediction predict_random_64b(const target::DramDesc& d) {
  const target::DramTiming& t = d.timing;
  const double banks = static_cast<double>(d.banks_per_rank());
  const double ranks = static_cast<double>(d.ranks);
  const double act_rate = ranks * std::min({banks / t.tRC, 4.0 / t.tFAW, 1.0 / t.tRRD_S});
  const double bursts_per_access = std::max(1.0, 64.0 / d.burst_bytes());
  const double burst_cycles =
      std::max(static_cast<double>(d.burst_length) / d.data_rate, static_cast<double>(t.tCCD_S));
  const double column_rate = 1.0 / (bursts_per_access * burst_cycles);
  const double per_channel = std::min(act_rate, column_rate);  // accesses per DRAM cycle
  const double bytes = per_channel * 64.0 * d.clock_mhz * 1e6 * d.channels;
  return {bytes * (1.0 - static_cast<double>(t.tRFC) / t.tREFI), bytes};
}

double random_rate(const std::string& preset, uint64_t accesses) {
  const target::DramDesc desc = load_preset(preset);
  const std::unique_ptr<DramModel> model = make_dram_model(desc);
  std::mt19937_64 rng(12345);  // fixed seed: the test is deterministic
  std::vector<Access> group;
  const uint64_t slots = desc.capacity_bytes / 64;
  for (uint64_t i = 0; i < accesses; ++i)
    group.push_back({(rng() % slots) * 64, 64, AccessKind::Read});
  const GroupResult result = model->serve(group, 0);
  return bytes_per_s(accesses * 64, result.done_ps);
}

TEST_P(DramBandwidth, RandomSixtyFourByteReadsReachTheRateTheTimingsPredict) {
  const target::DramDesc desc = load_preset(GetParam());
  const RandomPrediction expected = predict_random_64b(desc);
  const double rate = random_rate(GetParam(), 40000);
  EXPECT_GE(rate, 0.90 * expected.with_refresh) << GetParam();
  EXPECT_LE(rate, expected.without_refresh) << GetParam();
  RecordProperty("achieved_GBps", std::to_string(rate / 1e9));
  RecordProperty("predicted_GBps", std::to_string(expected.with_refresh / 1e9));
}

INSTANTIATE_TEST_SUITE_P(Presets, DramBandwidth,
                         ::testing::Values("DDR4-3200", "LPDDR4-4266", "HBM2"),
                         [](const ::testing::TestParamInfo<std::string>& preset) {
                           return preset_test_name(preset.param);
                         });

}  // namespace
}  // namespace s2::sim::dram
