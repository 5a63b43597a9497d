#pragma once
// Shared by the DRAM model tests: a DramDesc built by the target loader from a preset.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_clock.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/dram_registry.h"
#include "simulator/dram/load_target.h"

namespace s2::sim::dram {

// A DramDesc as the target loader builds it from `dram: {preset: NAME}`, plus `more` keys of
// the dram mapping in flow style ("channels: 2, controller: {scheduler: fcfs}").
inline target::DramDesc load_preset(const std::string& preset, const std::string& more = "") {
  const std::string text =
      "name: probe\nclock_mhz: 1000\npe_array: {rows: 4, cols: 4}\n"
      "sram:\n"
      "  input: {size: 1KiB, banks: 1, bank_width: 16}\n"
      "  weight: {size: 1KiB, banks: 1, bank_width: 16}\n"
      "  accumulator: {size: 1KiB, banks: 1, bank_width: 16}\n"
      "  output: {size: 1KiB, banks: 1, bank_width: 16}\n"
      "ppu: {lanes: 4, ops: {default: {throughput: 1, latency: 1}}}\n"
      "dma: {engines: 1, width: 64, max_outstanding: 8}\n"
      "dram: {preset: " +
      preset + (more.empty() ? "" : ", " + more) + "}\n";
  return target::parse_target(text, "probe.yaml", S2_SOURCE_DIR "/configs/dram").dram;
}

// A test name for a preset: its name without the dashes ("DDR4-3200" -> "DDR43200").
inline std::string preset_test_name(const std::string& preset) {
  std::string name;
  for (char c : preset) {
    if (c != '-') name += c;
  }
  return name;
}

// A timing in nCK as the probes' signed cycle count: n(p.t.tRCD).
inline int64_t n(uint32_t cycles) {
  return static_cast<int64_t>(cycles);
}

// One model of a preset (plus `more` dram keys, as for load_preset), driven by arrival cycles
// and addresses given as DRAM coordinates.
class DramProbe {
 public:
  explicit DramProbe(const std::string& preset, const std::string& more = "")
      : desc(load_preset(preset, more)),
        t(desc.timing),
        burst(static_cast<int64_t>(desc.burst_length / desc.data_rate)),
        model(make_dram_model(desc)),
        mapping(desc),
        clock_(desc.clock_mhz) {}

  Access at(uint32_t bank_group, uint32_t bank, uint32_t row, uint32_t column,
            AccessKind kind = AccessKind::Read) const {
    DramAddress a;
    a.bank_group = bank_group;
    a.bank = bank;
    a.row = row;
    a.column = column;
    return Access{mapping.encode(a), desc.burst_bytes(), kind};
  }

  // Latency in cycles of each access of `group` arriving at `cycle`.
  std::vector<int64_t> serve(const std::vector<Access>& group, int64_t cycle) {
    const GroupResult r = model->serve(group, clock_.to_ps(cycle));
    std::vector<int64_t> latency;
    for (Picoseconds done : r.access_done_ps)
      latency.push_back(clock_.to_cycle(done) - cycle);
    return latency;
  }
  int64_t serve_one(const Access& access, int64_t cycle) { return serve({access}, cycle)[0]; }
  const DramStats& stats() const { return model->stats(); }

  target::DramDesc desc;
  target::DramTiming t;
  int64_t burst;  // data-bus cycles of one burst: BL / data rate
  std::unique_ptr<DramModel> model;
  AddressMapping mapping;

 private:
  DramClock clock_;
};

// Every figure of two models' statistics: for tests that hold two ways of serving the same
// requests (threads, the short path for runs of hits) to the same result.
inline void expect_same_stats(const DramStats& a, const DramStats& b, const std::string& label) {
  EXPECT_EQ(a.bytes_read, b.bytes_read) << label;
  EXPECT_EQ(a.bytes_written, b.bytes_written) << label;
  EXPECT_EQ(a.read_bursts, b.read_bursts) << label;
  EXPECT_EQ(a.write_bursts, b.write_bursts) << label;
  EXPECT_EQ(a.row_hits, b.row_hits) << label;
  EXPECT_EQ(a.row_misses, b.row_misses) << label;
  EXPECT_EQ(a.row_conflicts, b.row_conflicts) << label;
  EXPECT_EQ(a.activates, b.activates) << label;
  EXPECT_EQ(a.precharges, b.precharges) << label;
  EXPECT_EQ(a.refreshes, b.refreshes) << label;
  EXPECT_EQ(a.reads_from_write_queue, b.reads_from_write_queue) << label;
  EXPECT_EQ(a.data_bus_busy_ps, b.data_bus_busy_ps) << label;
  EXPECT_EQ(a.last_done_ps, b.last_done_ps) << label;
}

}  // namespace s2::sim::dram
