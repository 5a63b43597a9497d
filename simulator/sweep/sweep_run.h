#pragma once
// `s2sim sweep SPEC -o DIR`: runs a sweep spec (sweep_spec.h) on the local cores and keeps its
// results in DIR (docs/sweep.md).
//
// In order: the spec is read and checked; DIR is created, or recognised as this spec's
// earlier run (DIR/sweep.json holds the spec's fingerprint: its text, the base configuration,
// its DRAM presets, the workload files and the simulator's version; another spec's DIR is
// refused); every point's configuration is written to DIR/configs/point-N.yaml and loaded (a
// combination the loader refuses fails that point's rows) and the constraints rule points
// out (DIR/excluded.csv says which and why); each model workload is compiled by `s2c compile`
// once per distinct compiler_properties() (isa/target/target_values.h) of the points that
// still need it, into DIR/bin/, its log in DIR/logs/; then every pending row (a point and a
// workload) is simulated, timing only, in a forked process of its own, up to `jobs` at once.
// Each finished row is appended to DIR/results.jsonl and DIR/results.csv, one write each, as
// it arrives; a rerun of an interrupted sweep first drops a torn last line, rewrites the CSV
// from the JSON lines, and runs only the rows missing. At the end both files are rewritten in
// row order and DIR/pareto.csv holds each workload's Pareto front over the spec's objectives.

#include <cstdint>
#include <ostream>
#include <string>

namespace s2::sim::sweep {

struct SweepOptions {
  std::string spec;
  std::string dir;
  uint32_t jobs = 0;      // simulations (and compiles) at once; 0: one per core
  std::string s2c;        // the compiler; empty: beside s2sim (installed or build tree)
  bool progress = false;  // a progress bar with ETA on stderr
  // Shard `shard` of `shards` (0: not sharded): only the rows whose number modulo `shards` is
  // `shard`, their results in DIR/shards/SHARD/ (collect_sweep merges them).
  uint32_t shard = 0;
  uint32_t shards = 0;
  // Slurm: prepare DIR and compile every workload here, write DIR/sweep.sbatch (a job array of
  // `shards` tasks, each `s2sim sweep SPEC -o DIR --shard i/shards`) and submit it with sbatch.
  bool slurm = false;
  std::string partition;  // sbatch --partition (empty: the cluster's default)
  bool wait = false;      // sbatch --wait, then collect
};

// Throws UserError for a bad spec, a DIR of another spec, or a missing s2c. Rows that fail are
// results (status "failed" and the error), not errors of the sweep.
void run_sweep(const SweepOptions& options, std::ostream& out);

// `s2sim sweep --collect DIR`: merges the shards' rows (and any of an unsharded run) into
// DIR/results.jsonl, DIR/results.csv and DIR/pareto.csv, in row order, as a local run writes
// them. Throws UserError when DIR holds no sweep.
void collect_sweep(const std::string& dir, std::ostream& out);

}  // namespace s2::sim::sweep
