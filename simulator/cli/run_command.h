#pragma once
// `s2sim run PROG.bin --config CFG.yaml`: simulates one training step on the SystemC top
// (simulator/top/top.h) and writes the reports (simulator/report/).
//
// Order of work: the config and the executable are loaded and validated first, so a malformed
// one is rejected with the loader's UserError before any simulation. After the run: the
// summary (and with `layers` the per-layer table) goes to `out`; the files asked for are
// written; then a deadlock or a roofline violation (a model bug) is an InternalError, raised
// after the reports so they can be inspected. The progress bar goes to stderr only when
// stderr is a terminal.
//
// The caller must be running inside sc_main (SystemC's entry point).

#include <cstdint>
#include <ostream>
#include <string>

namespace s2::sim {

struct RunCommandOptions {
  std::string executable;
  std::string
      config;  // target description; empty: the shipped configs/s2train_base.yaml, as in s2c
  std::string report;        // --report: JSON report path, empty for none
  std::string trace;         // --trace: Chrome/Perfetto trace path
  std::string memory_trace;  // --memory-trace: CSV path
  bool layers = false;       // --layers: per-layer table on stdout
  uint32_t window = 64;      // --window: controller decode window (1: sequential)
  uint32_t threads = 0;      // --threads: the DRAM model's threads (0: one per core)
  bool check = false;        // --check: the shadow-memory checker over the simulated order
  bool functional = false;   // --functional: compute real numbers (implied by the three below)
  uint32_t steps = 1;        // --steps: training steps on the same DRAM image
  std::string dump;          // --dump NAME[,NAME...]: tensors to write as .npy into dump_dir
  std::string dump_dir = ".";
  std::string dump_all;  // --dump-all DIR: every tensor
  std::string rtl;       // --rtl pe_array,ppu: RTL units replace the models (implies functional)
  std::string vcd;       // --vcd PREFIX: waveforms of the RTL units
  bool rtl_every_tile = false;  // --rtl-clock-every-tile
  bool force = false;           // --force: replace output files of another kind (never the inputs)
};

// Returns the exit status: 0, or 1 when --check found anything or an RTL unit diverged from
// its model (the findings and the first divergence are printed);
// errors are exceptions (isa/common/tool_main.h maps them).
int run_simulation(const RunCommandOptions& options, std::ostream& out);

}  // namespace s2::sim
