#pragma once
// Shared by the DRAM model tests: a DramDesc built by the target loader from a preset.

#include <string>

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

}  // namespace s2::sim::dram
