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

// The shared DRAM: serves a group of accesses arriving now (the caller's current time).
class DramIf : public virtual sc_core::sc_interface {
 public:
  // Returns the completion time of the whole group, in picoseconds from the run start.
  // An empty group completes at once.
  virtual uint64_t serve_now(const std::vector<timing::DramAccess>& group) = 0;
};

}  // namespace s2::sim::top
