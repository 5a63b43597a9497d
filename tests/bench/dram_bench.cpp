// DRAM model benchmark: for each shipped preset, the bandwidth the JEDEC model achieves on a
// sequential stream (64 KiB tiles, reads then writes), on random 64-byte reads, and on a tile
// copy (read a tile, write it elsewhere), with the model's own speed in bursts per wall second.
// Then a table of the bandwidth each preset reaches when the same accesses come as groups of 1,
// 16, 64 or 1024 (the many-requesters case): sequential reads and writes of 64-byte accesses,
// random 64-byte reads, a random read/write mix and tile-shaped loads (64 rows of 256 bytes, 4 KiB
// apart), every group handed over at time 0, all submitted together (many requesters sharing
// the controller's queues) and one at a time (each served before the next is handed over).
// Not a test: it asserts nothing, and the wall-clock numbers depend on the machine.
//
//   dram_bench [MiB]      (stream length per pattern, default 64; the table moves 1/8 of it)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_args.h"
#include "simulator/dram/dram_model.h"
#include "simulator/dram/load_target.h"
#include "simulator/dram_test_util.h"

namespace {

using s2::sim::dram::Access;
using s2::sim::dram::AccessKind;
using s2::sim::dram::DramModel;
using s2::sim::dram::Picoseconds;

struct Run {
  uint64_t bytes = 0;
  Picoseconds simulated_ps = 0;
  double wall_s = 0;
  uint64_t bursts = 0;
  double hit_rate = 0;
};

// Serves `groups`, each arriving when the previous one was handed over (all at time 0: the
// DMA keeps the controller's queue full), and measures simulated and wall time.
Run run(const s2::target::DramDesc& desc, const std::vector<std::vector<Access>>& groups) {
  const std::unique_ptr<DramModel> model = s2::sim::dram::make_dram_model(desc);
  Run r;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& group : groups) {
    r.simulated_ps = std::max(r.simulated_ps, model->serve(group, 0).done_ps);
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto& s = model->stats();
  r.bytes = s.bytes_read + s.bytes_written;
  r.bursts = s.read_bursts + s.write_bursts;
  r.hit_rate = static_cast<double>(s.row_hits) / static_cast<double>(r.bursts);
  return r;
}

void report(const char* pattern, const s2::target::DramDesc& desc, const Run& r) {
  const double rate = static_cast<double>(r.bytes) / (static_cast<double>(r.simulated_ps) * 1e-12);
  std::printf("  %-22s %8.2f GB/s  %5.1f%% of peak  row hits %5.1f%%  %9.0f bursts/s wall\n",
              pattern, rate / 1e9, 100.0 * rate / desc.peak_bandwidth_bytes_per_s(),
              100.0 * r.hit_rate, static_cast<double>(r.bursts) / r.wall_s);
}

// The accesses of one pattern of the group-size table, in arrival order.
std::vector<Access> pattern(const std::string& name, const s2::target::DramDesc& desc,
                            uint64_t bytes) {
  std::vector<Access> out;
  std::mt19937_64 rng(7);
  const uint64_t slots = desc.capacity_bytes / 64;
  const uint64_t n = bytes / 64;
  for (uint64_t i = 0; i < n; ++i) {
    if (name == "seq read") {
      out.push_back({i * 64, 64, AccessKind::Read});
    } else if (name == "seq write") {
      out.push_back({i * 64, 64, AccessKind::Write});
    } else if (name == "random read") {
      out.push_back({(rng() % slots) * 64, 64, AccessKind::Read});
    } else if (name == "random rd/wr") {
      const uint64_t a = (rng() % slots) * 64;
      out.push_back({a, 64, rng() % 2 == 0 ? AccessKind::Read : AccessKind::Write});
    } else {  // tile: 64 rows of 256 bytes, 4 KiB apart, tiles one after the other
      if (i % 4 != 0) continue;
      const uint64_t row = i / 4;
      out.push_back({(row / 64) * 64 * 4096 + (row % 64) * 4096 + (row / 64 % 16) * 256, 256,
                     AccessKind::Read});
    }
  }
  return out;
}

// Bandwidth of `accesses` handed over in groups of `size`, all at time 0: submitted together
// (`together`, the requesters sharing the controller's queues), or each served before the next
// is handed over (one requester at a time).
double grouped_rate(const s2::target::DramDesc& desc, const std::vector<Access>& accesses,
                    std::size_t size, bool together) {
  const std::unique_ptr<DramModel> model = s2::sim::dram::make_dram_model(desc);
  Picoseconds end = 0;
  std::vector<s2::sim::dram::GroupId> ids;
  for (std::size_t i = 0; i < accesses.size(); i += size) {
    const std::vector<Access> group(
        accesses.begin() + static_cast<std::ptrdiff_t>(i),
        accesses.begin() + static_cast<std::ptrdiff_t>(std::min(i + size, accesses.size())));
    if (together) {
      ids.push_back(model->submit(group, 0));
    } else {
      end = std::max(end, model->serve(group, 0).done_ps);
    }
  }
  for (s2::sim::dram::GroupId id : ids)
    end = std::max(end, model->complete(id).done_ps);
  const auto& s = model->stats();
  return static_cast<double>(s.bytes_read + s.bytes_written) / (static_cast<double>(end) * 1e-12);
}

void group_table(const char* preset, uint64_t bytes) {
  const s2::target::DramDesc desc = s2::sim::dram::load_preset(preset);
  std::printf(
      "%s, GB/s by group size (%.1f%% of peak = 1 GB/s): groups submitted together | "
      "one at a time\n",
      preset, 100.0 * 1e9 / desc.peak_bandwidth_bytes_per_s());
  std::printf("  %-14s %8s %8s %8s %8s | %8s %8s %8s %8s\n", "pattern", "1", "16", "64", "1024",
              "1", "16", "64", "1024");
  for (const char* name : {"seq read", "seq write", "random read", "random rd/wr", "tile"}) {
    const std::vector<Access> accesses = pattern(name, desc, bytes);
    std::printf("  %-14s", name);
    for (bool together : {true, false}) {
      if (!together) std::printf(" |");
      for (std::size_t size : {std::size_t{1}, std::size_t{16}, std::size_t{64}, std::size_t{1024}})
        std::printf(" %8.2f", grouped_rate(desc, accesses, size, together) / 1e9);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The tile copy writes half the stream at half the capacity on: every preset holds it.
  uint64_t max_mib = std::numeric_limits<uint64_t>::max();
  for (const char* preset : {"DDR4-3200", "LPDDR4-4266", "HBM2"})
    max_mib = std::min(max_mib, s2::sim::dram::load_preset(preset).capacity_bytes >> 20);
  const uint64_t mib =
      s2::bench::count_argument(argc, argv, "dram_bench", "dram_bench [MiB]", 64, 1, max_mib);
  const uint64_t total = mib << 20;
  const uint64_t tile = 64 * 1024;
  double all_bursts = 0;
  double all_wall = 0;
  for (const char* preset : {"DDR4-3200", "LPDDR4-4266", "HBM2"}) {
    const s2::target::DramDesc desc = s2::sim::dram::load_preset(preset);
    std::printf("%s: %u channel(s), peak %.2f GB/s\n", preset, desc.channels,
                desc.peak_bandwidth_bytes_per_s() / 1e9);
    std::vector<Run> runs;

    for (AccessKind kind : {AccessKind::Read, AccessKind::Write}) {
      std::vector<std::vector<Access>> groups;
      for (uint64_t a = 0; a < total; a += tile)
        groups.push_back({{a, tile, kind}});
      runs.push_back(run(desc, groups));
      report(kind == AccessKind::Read ? "sequential read" : "sequential write", desc, runs.back());
    }

    std::mt19937_64 rng(1);
    std::vector<std::vector<Access>> random(1);
    const uint64_t slots = desc.capacity_bytes / 64;
    for (uint64_t i = 0; i < total / 64 / 8; ++i) {
      random[0].push_back({(rng() % slots) * 64, 64, AccessKind::Read});
    }
    runs.push_back(run(desc, random));
    report("random 64 B read", desc, runs.back());

    std::vector<std::vector<Access>> copy;
    for (uint64_t a = 0; a < total / 2; a += tile) {
      copy.push_back({{a, tile, AccessKind::Read}});
      copy.push_back({{a + desc.capacity_bytes / 2, tile, AccessKind::Write}});
    }
    runs.push_back(run(desc, copy));
    report("tile copy (rd+wr)", desc, runs.back());

    for (const Run& r : runs) {
      all_bursts += static_cast<double>(r.bursts);
      all_wall += r.wall_s;
    }
  }
  std::printf("model speed over all runs: %.2f M bursts per wall second\n",
              all_bursts / all_wall / 1e6);
  for (const char* preset : {"DDR4-3200", "LPDDR4-4266", "HBM2"})
    group_table(preset, total / 8);
  return 0;
}
