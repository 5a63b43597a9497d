#pragma once
// Controller: fetches and decodes the program in order, tracks dependencies
// (dependency_tracker.h), issues each instruction to its unit's queue so the PE array, the PPU
// and the DMA overlap whenever dependencies allow, and executes the control instructions
// (barrier, end) itself. One SC_THREAD; it wakes only on a run start or a completion.
//
// Deadlock: when nothing is in flight, nothing can issue and instructions remain, it stops
// and leaves the stuck instructions in the run result (never a hang).

#include <array>
#include <deque>
#include <memory>
#include <systemc>

#include "simulator/top/dependency_tracker.h"
#include "simulator/top/interfaces.h"
#include "simulator/top/run_context.h"

namespace s2::sim::top {

class Controller : public sc_core::sc_module, public IssueIf {
 public:
  SC_HAS_PROCESS(Controller);
  explicit Controller(sc_core::sc_module_name name);

  // Arms the next run; the thread picks it up when simulation resumes.
  void begin(RunContext& ctx);

  uint32_t next(isa::Unit unit) override;
  void complete(const report::InstructionRecord& record) override;
  void abort(uint32_t index) override;

 private:
  void run();
  void run_program(RunContext& ctx);
  uint64_t now_cycle(const RunContext& ctx) const;

  RunContext* ctx_ = nullptr;
  bool pending_ = false;
  sc_core::sc_event start_;
  sc_core::sc_event progress_;  // a completion or an abort
  std::unique_ptr<DependencyTracker> tracker_;
  std::array<std::deque<uint32_t>, isa::kUnitCount> queues_;  // indexed by isa::Unit
  std::array<sc_core::sc_event, isa::kUnitCount> queue_events_;
};

}  // namespace s2::sim::top
