#pragma once
// Loading a target description (configs/*.yaml) into a TargetDesc.
//
// The schema, with units, ranges and defaults, is docs/target.md. In short: top-level keys
// name, clock_mhz, pe_array, sram, ppu, dma, dram. The dram mapping may name a preset,
// `preset: DDR4-3200`, which loads `<preset_dir>/DDR4-3200.yaml` (a file with the schema of
// the dram mapping minus `preset`, `backend` and `controller`) and then applies every other
// key of the dram mapping, including single timings under `timing:`, as an override. The DRAM
// backend the mapping names reads and checks its own keys (dram_section.h); the loader is
// given the backends, and s2c and s2sim call it through simulator/dram/load_target.h, which
// gives it the simulator's.
//
// Every mistake is an s2::UserError `FILE:LINE: KEY.PATH: problem` (see param_reader.h):
// unknown keys, wrong types, out-of-range values, an unknown preset (listing the presets in
// the directory) or backend, and what the backend refuses, such as relations between DRAM
// timings that JEDEC guarantees. A mistake in a preset file names the preset file.

#include <string>

#include "isa/target/dram_section.h"
#include "isa/target/target_desc.h"

namespace s2::target {

// Loads the configuration at `path`; presets are looked up in `<directory of path>/dram/`.
TargetDesc load_target(const std::string& path, const DramBackendSchemas& backends);

// Parses configuration text. `file_name` is used in messages and stored as source_file;
// presets are looked up in `preset_dir`.
TargetDesc parse_target(const std::string& yaml_text, const std::string& file_name,
                        const std::string& preset_dir, const DramBackendSchemas& backends);

// A readable multi-line summary of what was understood (for `s2sim validate-config`): array
// size and dataflow, clock and peak MAC rate, buffers, PPU lanes, DMA, DRAM preset,
// organisation, capacity and peak bandwidth. Ends with a newline.
std::string describe_target(const TargetDesc& target);

}  // namespace s2::target
