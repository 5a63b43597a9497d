#pragma once
// The sweep's directory and its files (docs/sweep.md, "Results"): the layout, the claim of a
// DIR for one spec (its fingerprint in sweep.json), the lock shards take while claiming, the
// configuration's side files (DRAM presets, technologies, host links) copied beside the
// points, appending a row, and the final files in row order with the Pareto front.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "isa/common/json.h"
#include "simulator/sweep/sweep_spec.h"

namespace s2::sim::sweep {

namespace fs = std::filesystem;

// The lock file's name inside DIR (ignored when DIR is checked for being empty).
inline constexpr const char* kLockName = ".sweep.lock";

// Held (flock) while a run claims DIR and writes the points' configurations, so shards that
// start together claim it once. Creates DIR.
class DirectoryLock {
 public:
  explicit DirectoryLock(const fs::path& dir);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

struct Layout {
  fs::path dir, configs, bin, logs, state, jsonl, csv, pareto, excluded;
  explicit Layout(const fs::path& d)
      : dir(d),
        configs(d / "configs"),
        bin(d / "bin"),
        logs(d / "logs"),
        state(d / "sweep.json"),
        jsonl(d / "results.jsonl"),
        csv(d / "results.csv"),
        pareto(d / "pareto.csv"),
        excluded(d / "excluded.csv") {}
};

// The whole file (UserError naming it when it cannot be read).
std::string read_all(const fs::path& path);
// Through a temporary file renamed into place (isa/container/writer.h).
void write_text(const fs::path& path, const std::string& text);
// Appends with one write(2) on an O_APPEND descriptor: a line is in the file whole or, when
// the process is killed inside the call, torn at its end (a rerun drops a torn last line).
void append_line(const fs::path& path, const std::string& line);

// The base configuration's DRAM presets, technologies and host link presets (`dram/*.yaml`,
// `tech/*.yaml`, `host_link/*.yaml` beside it), sorted.
std::vector<fs::path> side_files(const SweepSpec& spec);
// The sweep's identity: the spec's text, the base configuration, its side files, the workload
// files and the simulator's version (FNV-1a, 64 bits, as hex).
std::string fingerprint(const SweepSpec& spec);

// Creates DIR for this spec, or accepts it as this spec's earlier run (true); refuses a DIR of
// another spec, or a non-empty one without a sweep.
bool claim_directory(const Layout& l, const SweepSpec& spec, const std::string& print,
                     const std::vector<std::string>& columns, uint64_t points);
// The side files copied into DIR/configs/dram, tech and host_link, so each point-N.yaml loads
// on its own (`s2sim run X.bin --config DIR/configs/point-N.yaml`).
void copy_side_files(const SweepSpec& spec, const Layout& l);

// The rows (by row number) as JSON lines and as CSV, each file replaced whole.
void write_rows(const fs::path& jsonl, const fs::path& csv, const std::vector<std::string>& columns,
                const std::map<uint64_t, Json>& rows);
// DIR/results.jsonl and results.csv in row order, and pareto.csv over `objectives` (none: no
// front). Returns the summary lines.
std::string write_final(const Layout& l, const std::vector<std::string>& columns,
                        const std::vector<std::string>& objectives,
                        const std::map<uint64_t, Json>& done);

}  // namespace s2::sim::sweep
