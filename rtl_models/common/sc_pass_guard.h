#pragma once
// The SystemC harnesses' entry for a pass run from inside the simulation (rtl_models/pe_array/
// pe_array_sc.h, rtl_models/ppu/ppu_sc.h): a simulator unit's thread calls run_pass() and the
// pass is clocked in that thread. Header-only; internal to rtl_models.
#include <string>
#include <systemc>

#include "isa/common/errors.h"

namespace s2::rtl {

// Whether run_pass() was called by a process of the running simulation (rather than from
// outside, between sc_start() calls).
inline bool called_inside_simulation() {
  return sc_core::sc_get_status() == sc_core::SC_RUNNING;
}

// For the scope of one in-simulation pass: checks that the caller is a thread process (a pass
// waits on the clock), waits until the module's reset is done, and marks the module busy so a
// second process cannot drive it at the same time.
class InSimulationPass {
 public:
  InSimulationPass(const std::string& module, const bool& reset_done,
                   const sc_core::sc_event& reset_done_event, bool& in_pass)
      : in_pass_(in_pass) {
    S2_CHECK(sc_core::sc_get_current_process_handle().proc_kind() == sc_core::SC_THREAD_PROC_,
             module +
                 ": run_pass() from inside the simulation needs a thread process "
                 "(it waits on the clock)");
    while (!reset_done)
      sc_core::wait(reset_done_event);
    S2_CHECK(!in_pass_, module + ": two processes run passes at once");
    in_pass_ = true;
  }
  ~InSimulationPass() { in_pass_ = false; }
  InSimulationPass(const InSimulationPass&) = delete;
  InSimulationPass& operator=(const InSimulationPass&) = delete;

 private:
  bool& in_pass_;
};

}  // namespace s2::rtl
