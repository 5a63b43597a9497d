#pragma once
// The DRAM shared by the units: a channel that moves each group through the run's DMA engines
// (dma_engines.h) and DramModel (dram_model.h) from the caller's current simulated time, and
// records each group for the bandwidth counters of the reports (in the order handed over). The
// model itself keeps the device state between groups, so the module has no process: serving costs
// no wait() and no context switch.

#include <map>
#include <systemc>

#include "simulator/top/interfaces.h"
#include "simulator/top/run_context.h"

namespace s2::sim::top {

class DramModule : public sc_core::sc_module, public DramIf {
 public:
  explicit DramModule(sc_core::sc_module_name name) : sc_core::sc_module(name) {}

  void begin(RunContext& ctx) { ctx_ = &ctx; }

  uint64_t submit_now(const std::vector<timing::DramAccess>& group) override;
  uint64_t finish(uint64_t ticket) override;

 private:
  RunContext* ctx_ = nullptr;
  std::vector<dram::Access> scratch_;
  // Per open ticket (the DMA engines' own): its event in the run's list, which finish() fills
  // in.
  std::map<DmaEngines::Ticket, std::size_t> event_of_;
};

}  // namespace s2::sim::top
