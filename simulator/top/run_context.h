#pragma once
// The state of one simulation run, shared by the modules of the top (top.h). The module
// hierarchy is elaborated once per process (SystemC cannot elaborate twice); each run hands
// the modules a fresh RunContext, so runs are independent and repeatable in one process.
//
// Time: the accelerator clock drives the units; every unit event lies on a clock edge. The
// DRAM model works in picoseconds relative to the run's start (base_ps); edge_ps() and
// cycle_at_or_after() convert.

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "isa/container/executable.h"
#include "isa/target/target_desc.h"
#include "simulator/dram/dram_model.h"
#include "simulator/report/run_result.h"
#include "simulator/rtl/cosim_log.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/top/dma_engines.h"
#include "simulator/top/host_link.h"
#include "simulator/top/memory_tracker.h"
#include "simulator/top/rtl_selection.h"

namespace s2::sim::top {

class AcceleratorClock {
 public:
  explicit AcceleratorClock(double clock_mhz) : period_ps_(1e6 / clock_mhz) {}
  uint64_t edge_ps(uint64_t cycle) const;
  uint64_t cycle_at_or_after(uint64_t ps) const;  // first edge at or after `ps`
  double period_ps() const { return period_ps_; }

 private:
  double period_ps_;
};

class RtlTileClock;  // rtl_tile_clock.h

struct SimOptions {
  // Decode window of the controller: how many instructions past the oldest incomplete one may
  // issue. 1: sequential (each instruction starts after the previous completed).
  uint32_t window = 64;
  // Threads the DRAM model may serve a transfer's channels on (DramModel::set_threads); 0: one
  // per core. The results do not depend on it.
  uint32_t threads = 0;
  // Called after every completed instruction with (completed, total); may be empty.
  std::function<void(size_t, size_t)> progress;
  // `--rtl`: the RTL units the process's top is built with (top.h); with any, they run the
  // PE-array and PPU units' tiles and `cosim` (not owned) records their comparison with the
  // model.
  RtlSelection rtl;
  rtl::CosimLog* cosim = nullptr;
  // Whether a tile identical to one the RTL already clocked takes its cycles instead of being
  // clocked again (rtl_tile_clock.h, "Repeated tiles"); the cycles are the same either way.
  bool rtl_reuse = true;
  // Set by Top::run from the above: the clock the units hand their tiles to; null: the
  // model's formula. Not owned.
  RtlTileClock* rtl_clock = nullptr;
};

struct RunContext {
  RunContext(const isa::Executable& exe, const target::TargetDesc& target, SimOptions options);

  const isa::Executable& exe;
  const target::TargetDesc& target;
  SimOptions options;
  AcceleratorClock clock;
  timing::PeArrayModels pe_models;
  std::unique_ptr<dram::DramModel> dram;
  DmaEngines dma;                     // every DRAM transfer goes through them
  std::optional<HostLink> host_link;  // the target's, when it has one
  MemoryTracker memory;
  report::RunResult result;
  std::vector<uint8_t> completed;  // per instruction: a record was filled
  size_t completed_count = 0;
  uint64_t base_ps = 0;      // SystemC time at which the run started
  std::exception_ptr error;  // first failure inside a process; the run stops issuing

  bool failed() const { return error != nullptr; }
  void fail(std::exception_ptr e) {
    if (!error) error = std::move(e);
  }
  void started(uint32_t index, uint64_t cycle) { memory.started(index, cycle); }
  // Fills the instruction's record and updates unit and memory accounting.
  void finished(const report::InstructionRecord& record);
};

// The name of instruction `index` in reports: its op's debug name, or its mnemonic.
std::string instruction_name(const isa::Executable& exe, uint32_t index);

}  // namespace s2::sim::top
