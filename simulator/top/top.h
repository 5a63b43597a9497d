#pragma once
// The SystemC top of the S2Train accelerator (DESIGN.md §5): member modules bound in the
// constructor - the controller, one unit per queued unit of the ISA (PE array, PPU, DMA), the
// DRAM they share, and the RTL units when `--rtl` selects them.
//
// simulate() runs one training step of an executable on a target. SystemC elaborates once
// per process, so the hierarchy is built on the first call and reused: every call hands the
// modules a fresh RunContext (new DRAM model, trackers and result), starts the controller and
// runs sc_start() until no process has anything left to do. Calls are thus independent and
// deterministic (the same inputs give the same cycles), any number per process. Not
// reentrant and not thread-safe (neither is SystemC).
//
// Errors: a tile that cannot fit or a DRAM access beyond the capacity is the UserError of the
// model that found it, naming the instruction. A deadlock does not throw: the result lists
// the stuck instructions (RunResult::deadlock) and total_cycles is where it stopped.

#include <memory>
#include <systemc>
#include <vector>

#include "isa/container/executable.h"
#include "isa/target/target_desc.h"
#include "simulator/report/run_result.h"
#include "simulator/top/controller.h"
#include "simulator/top/dram_module.h"
#include "simulator/top/rtl_units.h"
#include "simulator/top/run_context.h"
#include "simulator/top/unit.h"

namespace s2::sim::top {

class Top : public sc_core::sc_module {
 public:
  // The units come from the ISA's unit list (isa.def S2_UNIT): one module per queued unit,
  // named by its block ("pe_array", "ppu", "dma"). `rtl` selects the RTL units built with the
  // top for `target` (its array size and clock; rtl_units.h).
  Top(sc_core::sc_module_name name, const RtlSelection& rtl, const target::TargetDesc& target);

  // One training step. With RTL units, they clock the PE-array and PPU units' tiles and
  // options.cosim (required then) records the comparison with the model.
  report::RunResult run(const isa::Executable& exe, const target::TargetDesc& target,
                        const SimOptions& options);

  const RtlUnitSet& rtl() const { return rtl_; }

 private:
  Controller controller_;
  std::vector<std::unique_ptr<Unit>> units_;  // kQueuedUnits order
  DramModule dram_;
  RtlUnitSet rtl_;
};

// The process's top (SystemC elaborates once per process), built on the first call with the
// given RTL selection. A later call asking for other RTL units (or the same on another array
// size or clock) is a UserError: the modules exist.
Top& process_top(const RtlSelection& rtl, const target::TargetDesc& target);

// process_top(options.rtl, target).run(exe, target, options).
report::RunResult simulate(const isa::Executable& exe, const target::TargetDesc& target,
                           const SimOptions& options = {});

}  // namespace s2::sim::top
