#pragma once
// `s2sim run --report out.json`: everything the summary says, plus one row per instruction.
// Top-level keys: program, config, clock_mhz, total_cycles, milliseconds, units{pe,ppu,dma:
// busy_cycles, compute_cycles, utilization, instructions}, dram{bytes_read, bytes_written,
// bandwidth_bytes_per_s, peak_bytes_per_s, row_hits, row_misses, row_conflicts, refreshes,
// capacity_bytes, addressable_bytes (what the organisation could address)},
// dma{engines, transfers, wait_cycles (transfers waiting for a free engine, summed)},
// memory{peak_bytes, planned_peak_bytes, planned_persistent_bytes, planned_arena_bytes},
// roofline{cycles, ratio, total_macs, total_bytes}, deadlock[], instructions[{index, op,
// mnemonic, unit, start_cycle, end_cycle, cycles, compute_cycles, tiles, pe_cycles (the array's
// cycles over the tiles), block ([M, N, K] of the first tile: the sequencer's split; null for
// fused attention and non-PE units), pe_efficiency (macs / (PEs * pe_cycles): what fill, drain
// and partial tiles leave of the array), macs, bytes, roofline_cycles, pe_utilization (PE
// instructions: macs / (PEs * cycles), else 0), bound}].

#include <ostream>

#include "simulator/report/run_result.h"

namespace s2::sim::report {

void write_json_report(const RunResult& result, std::ostream& os);

}  // namespace s2::sim::report
