#pragma once
// The simulator as a library: one function that runs an executable on a target the way
// `s2sim run` does, for the CLI, the sweep driver and tests alike. The CLI only maps flags to
// RunOptions and writes what comes back (summary, reports, .npy dumps, manifest).
//
// What run_program() does, in order:
//  1. the timing simulation on the SystemC top (simulator/top/top.h), with the RTL units of
//     options.rtl clocking the PE-array and PPU units' tiles when any are selected;
//     observer.timing_done() then sees the result (the CLI prints and writes its reports
//     there, and may throw: a deadlock stops the run before anything else);
//  2. with VCD waveforms asked for, opens them (so they show the functional replay's passes);
//  3. when functional (options.functional(), or implied by steps > 1, captured tensors or
//     RTL units): the functional replay of every instruction in the simulated completion
//     order on a DRAM image loaded from the executable, for `steps` steps with weights,
//     optimizer and batch-norm state carried over, on the C++ models or the RTL units;
//     observer.step_done() sees each step's loss; the tensors in options.capture are taken
//     in the last step as their planned lifetimes end (later their space may hold another;
//     tensor_capture.h says what "end" means in an overlapping order);
//  4. with options.check, the shadow-memory checker over the simulated completion order.
//
// Errors are exceptions: UserError for what the executable or the target cannot do (a tile
// that does not fit, a label out of range), InternalError for model bugs. A deadlock is not
// an error here: result.timing.deadlock lists the stuck instructions and nothing after step 1
// runs. Must be called from inside sc_main (SystemC's entry point); the first call elaborates
// the process's top with options.rtl, and later calls must ask for the same RTL units.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "isa/container/executable.h"
#include "isa/target/target_desc.h"
#include "simulator/checker/finding.h"
#include "simulator/report/run_result.h"
#include "simulator/rtl/cosim_log.h"
#include "simulator/top/rtl_selection.h"

namespace s2::sim {

struct RunOptions {
  uint32_t window = 64;         // controller decode window (1: sequential)
  uint32_t threads = 0;         // threads of the DRAM model (0: one per core); same results
  bool compute = false;         // compute real numbers (see functional())
  uint32_t steps = 1;           // training steps on the same DRAM image
  std::vector<size_t> capture;  // tensor-table indices whose values to return
  bool check = false;           // run the shadow-memory checker
  top::RtlSelection rtl;        // RTL units instead of the models
  std::string vcd_prefix;       // with rtl: waveforms PREFIX.pe_array.vcd, PREFIX.ppu.vcd
  bool rtl_every_tile = false;  // with rtl: clock repeated tiles of the timing run too
  // The executable's file, named first in the errors of running it (empty: not named).
  std::string program;
  // Called after every completed instruction of the timing run with (completed, total).
  std::function<void(size_t, size_t)> progress;

  // Whether the run computes numbers: asked for, or needed by what else is asked.
  bool functional() const { return compute || steps > 1 || !capture.empty() || rtl.any(); }
};

// Sees the run's results as they come (all optional).
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void timing_done(const report::RunResult& /*result*/) {}
  // `loss`: the step's loss, when the program computes one.
  virtual void step_done(uint32_t /*step*/, std::optional<double> /*loss*/) {}
};

struct RunOutput {
  report::RunResult timing;
  bool functional = false;
  std::optional<double> loss;  // the last step's, when functional and the program has a loss
  // Per tensor-table entry: its dense bytes when it was in options.capture, else empty.
  std::vector<std::vector<uint8_t>> captured;
  bool checked = false;
  std::vector<checker::Finding> findings;  // with check
  rtl::CosimLog cosim;                     // with RTL units
};

RunOutput run_program(const isa::Executable& exe, const target::TargetDesc& target,
                      const RunOptions& options, RunObserver* observer = nullptr);

// Throws UserError "memory plan: ..." when the executable's memory plan needs more DRAM than
// the target has, or host memory (plan.host_size) that the target's host link does not give.
// `target_what` names the target in the message ("configuration 's2train_base'"). Cheap: run
// it before anything is allocated.
void check_memory_fits(const isa::Executable& exe, const target::TargetDesc& target,
                       const std::string& target_what);

// Instruction indices in the order the timing simulation completed them (a valid order: the
// dependencies hold).
std::vector<uint32_t> completion_order(const report::RunResult& result);

}  // namespace s2::sim
