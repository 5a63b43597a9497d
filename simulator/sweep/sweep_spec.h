#pragma once
// A sweep spec (docs/sweep.md): the base configuration, the axes that vary it, how the axes
// combine into points, the constraints that rule points out, the workloads every point runs,
// and the objectives of the Pareto front. load_sweep_spec() reads and checks it; every mistake
// is a UserError `SPEC:LINE: KEY.PATH: problem`, among them an axis value the configuration
// loader refuses on the base configuration (checked one value at a time, before any work).

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/sweep/expression.h"

namespace s2::sim::sweep {

// One axis: key paths set together, and the values they take. A value gives every key the
// same text, or (a list the length of `keys`) each key its own.
struct Axis {
  std::vector<std::string> keys;                 // config key paths, "sram.input.size"
  std::vector<std::vector<std::string>> values;  // values[v][k]: the YAML text of key k
  std::vector<int> value_lines;                  // where value v was written (a range: its line)
  std::string path;                              // "axes[1]", for messages
  int line = 0;
};

enum class Combine { Grid, Zip, Random };

struct Workload {
  enum class Kind { Model, Executable };
  Kind kind = Kind::Model;
  std::string name;                  // the column value: `name:`, else the model's stem
  std::string model;                 // zoo name or absolute path of the .onnx or .bin
  std::vector<std::string> options;  // s2c compile flags
  bool fuse_attention = false;       // options holds --fuse-attention
  std::string path;                  // "workloads[0]"
  int line = 0;
};

struct Constraint {
  Expression expression;
  std::string path;  // "constraints[2]"
  int line = 0;
};

struct SweepSpec {
  std::string file;         // the spec as given
  std::string text;         // its contents (the sweep's identity is built from them)
  std::string base_config;  // absolute path of the configuration every point starts from
  std::vector<Axis> axes;
  Combine combine = Combine::Grid;
  uint64_t samples = 0;  // random: points drawn
  uint64_t seed = 1;     // random: the seed
  std::vector<Constraint> constraints;
  std::vector<Workload> workloads;
  std::vector<std::string> objectives;  // minimised on the Pareto front
  int objectives_line = 0;
};

// The metrics of a result row, in column order; objectives may name these and the values of
// the configuration (isa/target/target_values.h).
const std::vector<std::string>& metric_names();

// Reads and checks the spec at `path`: syntax, keys, every axis value applied alone to the
// base configuration, constraint names (evaluated on the base configuration), workload files.
// `default_base`: the configuration used when the spec names none.
SweepSpec load_sweep_spec(const std::string& path, const std::string& default_base);

// The most points a spec may describe before constraints.
inline constexpr uint64_t kMaxPoints = 1'000'000;

}  // namespace s2::sim::sweep
