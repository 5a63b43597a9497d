#pragma once
// A target's values by their YAML key paths, for what reads a configuration as data rather
// than as hardware: a sweep's constraints and result columns (simulator/sweep/), and the
// properties of a target that s2c reads, which decide when two configurations compile alike.

#include <string>
#include <variant>
#include <vector>

#include "isa/target/target_desc.h"

namespace s2::target {

// A number (sizes in bytes, clocks in MHz, counts) or a name (dataflow, preset).
using TargetValue = std::variant<double, std::string>;

struct NamedTargetValue {
  std::string path;  // "sram.input.size", or a derived figure ("pe_array.macs")
  TargetValue value;
};

// Every value of `target` by the key path its YAML spells (docs/target.md), after presets and
// defaults, followed by derived figures: pe_array.macs (rows x cols), sram.size (the four
// buffers together), dram.peak_bandwidth (bytes/s, all channels), dram.burst_bytes. Sizes are
// bytes; the order is fixed.
std::vector<NamedTargetValue> target_values(const TargetDesc& target);

// What `s2c compile` reads of a target, as canonical text: two targets with equal text compile
// any model with the same options into the same executable, except that the executable's
// header names the target it was compiled for and that the DRAM capacity is a limit the
// compile checks (a step that does not fit fails). The properties, and where s2c reads them:
//   * pe_array.epilogue and the activations it computes (compiler/passes/fusion.cpp);
//   * with --fuse-attention, the array's rows and cols and the four SRAM buffers' sizes, from
//     which the attention blocks are chosen (simulator/timing/attention_tiling.cpp,
//     choose_attention_blocks).
// compiler_test's CompilesAlikeUnderEqualCompilerProperties keeps this list true.
std::string compiler_properties(const TargetDesc& target, bool fuse_attention);

}  // namespace s2::target
