#pragma once
// The SystemC top of the S2Train accelerator (DESIGN.md §5): member modules bound in the
// constructor - the controller, the PE array, PPU and DMA units, and the DRAM they share.
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

#include <systemc>

#include "isa/container/executable.h"
#include "isa/target/target_desc.h"
#include "simulator/report/run_result.h"
#include "simulator/top/controller.h"
#include "simulator/top/dram_module.h"
#include "simulator/top/run_context.h"
#include "simulator/top/unit.h"

namespace s2::sim::top {

class Top : public sc_core::sc_module {
 public:
  explicit Top(sc_core::sc_module_name name);

  report::RunResult run(const isa::Executable& exe, const target::TargetDesc& target,
                        const SimOptions& options);

 private:
  Controller controller_;
  Unit pe_array_;
  Unit ppu_;
  Unit dma_;
  DramModule dram_;
};

report::RunResult simulate(const isa::Executable& exe, const target::TargetDesc& target,
                           const SimOptions& options = {});

}  // namespace s2::sim::top
