#pragma once
// The stdout reports of `s2sim run`: the summary (total cycles and time, per-unit busy cycles
// and utilization, DRAM traffic and achieved bandwidth, memory peak, whole-step ratio to the
// roofline) and the per-layer table.

#include <string>

#include "simulator/report/run_result.h"

namespace s2::sim::report {

std::string summary_text(const RunResult& result);

// The layer an op belongs to: its debug name up to the first '/' or '.', with a trailing
// backward/update marker kept apart ("conv1.bwd_data" -> "conv1"); for an ONNX node's name
// ("/features/features.3/conv/conv.1/Conv") the module under the top one when it is a
// container's child ("features.3"), else the top module. Rows with no debug name fall under
// their mnemonic.
std::string layer_of(const std::string& op);

// 100 * macs / (PEs * pe_cycles): the share of the array's multipliers busy while the PE
// array works on those MACs (0 without cycles).
double mac_utilization(const RunResult& r, uint64_t macs, uint64_t pe_cycles);

// One row per layer (in order of first appearance): instructions, cycles on each unit, MACs,
// bytes, the share of the summed instruction cycles and the PE array's MAC utilization
// during the layer's PE instructions.
std::string layer_table(const RunResult& result);

}  // namespace s2::sim::report
