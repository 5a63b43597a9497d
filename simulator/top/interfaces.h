#pragma once
// The SystemC interfaces the top's modules are bound through (ports in the units, channels in
// the controller and the DRAM module). Both are called from the units' SC_THREADs.

#include <cstdint>
#include <systemc>
#include <vector>

#include "isa/encoding/isa_table.h"
#include "simulator/report/run_result.h"
#include "simulator/timing/dram_access.h"

namespace s2::sim::top {

struct RunContext;

// The controller's side of a unit: its issue queue and the completion report.
class IssueIf : public virtual sc_core::sc_interface {
 public:
  // Blocks until the controller issues an instruction to `unit`; returns its index.
  virtual uint32_t next(isa::Unit unit) = 0;
  // The unit finished the instruction (record filled); wakes the controller.
  virtual void complete(const report::InstructionRecord& record) = 0;
  // The unit failed on an instruction (error stored in the run context); wakes the controller.
  virtual void abort(uint32_t index) = 0;
};

// The shared DRAM: takes a group of accesses arriving now (the caller's current time) and tells
// when it completes once the caller needs to know. Groups handed over and not yet finished
// share the DRAM controller's queues (dram_model.h), so a caller should finish a group as late
// as it can: when it must wait for it.
class DramIf : public virtual sc_core::sc_interface {
 public:
  // Hands over `group` (non-empty) arriving now; the ticket is for finish().
  virtual uint64_t submit_now(const std::vector<timing::DramAccess>& group) = 0;
  // The completion time of the whole group, in picoseconds from the run start; once per ticket.
  virtual uint64_t finish(uint64_t ticket) = 0;
};

}  // namespace s2::sim::top
