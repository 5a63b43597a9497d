#pragma once
// The stdout reports of `s2sim run`: the summary (total cycles and time, per-unit busy cycles
// and utilization, DRAM traffic and achieved bandwidth, memory peak, whole-step ratio to the
// roofline) and the per-layer table.

#include <string>

#include "simulator/report/run_result.h"

namespace s2::sim::report {

std::string summary_text(const RunResult& result);

// The layer an op belongs to: its debug name up to the first '/' or '.', with a trailing
// backward/update marker kept apart ("conv1.bwd_data" -> "conv1"). Rows with no debug name
// fall under their mnemonic.
std::string layer_of(const std::string& op);

// One row per layer (in order of first appearance): instructions, cycles on each unit, MACs,
// bytes, and the share of the summed instruction cycles.
std::string layer_table(const RunResult& result);

}  // namespace s2::sim::report
