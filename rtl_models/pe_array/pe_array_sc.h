#pragma once
// The SystemC Verilator build of pe_array.sv as an sc_module behind the RtlPeArray interface,
// for co-simulation inside s2sim. Bits and cycle counts are those of the plain C++ build.
//
// Two ways to run a pass; either way a pass of N cycles advances SystemC time by exactly N
// clock periods (clock_period_ps), its first rising edge half a period after the call:
//  * from a SystemC thread process (the simulation is running): the pass is clocked in the
//    caller's thread, which returns when it is done. This is how s2sim's PE-array unit runs its
//    tiles on the RTL (simulator/top/unit.h). One process at a time.
//  * from outside the simulation (between sc_start() calls, e.g. the functional replay): the
//    pass is posted to the module's driver thread and run_pass() calls sc_core::sc_start(),
//    which returns when the pass is done (no free-running sc_clock keeps the kernel busy).
// The clock (an sc_signal<bool>) toggles only while a pass runs.
//
// Reset: the driver thread holds rst_n low for two cycles at the start of the first
// simulation (time 0 of the process); a pass requested before that ends waits for it.
//
// SystemC rule: every instance must be constructed before the first sc_start() of the
// process (modules cannot be added once elaboration has finished). Built sizes: 32x32 and
// 16x16; any other size is a UserError.
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>

#include "rtl_models/pe_array/pe_array_rtl.h"

class VerilatedVcdSc;

namespace s2::rtl {

class PassMemories;

// A unit clocked in step with the array during a pass (RtlPeArraySc::run_followed_pass): the
// PPU epilogue consuming the array's drain port (simulator/top/rtl_tile_clock.h). Per rising
// edge of the pass: before_rise() with the drain port as the edge will sample it (data: the
// row's `cols` words, only when valid), rise() in the same delta as the array's clock, then
// half a period later after_rise(), and fall() with the array's falling clock.
class PeArrayFollower {
 public:
  virtual ~PeArrayFollower() = default;
  virtual void before_rise(bool drain_valid, uint32_t row, const uint32_t* data) = 0;
  virtual void rise() = 0;
  virtual void after_rise() = 0;
  virtual void fall() = 0;
};

class RtlPeArraySc final : public sc_core::sc_module, public RtlPeArray {
 public:
  RtlPeArraySc(sc_core::sc_module_name name, uint32_t rows, uint32_t cols,
               uint64_t clock_period_ps);
  ~RtlPeArraySc() override;

  uint32_t rows() const override { return rows_; }
  uint32_t cols() const override { return cols_; }
  uint32_t max_m() const override;
  uint32_t macs() const override;
  uint64_t run_pass(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w,
                    size_t ldw, uint32_t* c, size_t ldc) override;

  // run_pass() from a thread process of the running simulation, with `follower` clocked in
  // step; `drain` sets cfg_drain (the pass's rows leave through the drain port). Same cycles.
  uint64_t run_followed_pass(const PePass& pass, bool drain, const uint32_t* x, size_t ldx,
                             const uint32_t* w, size_t ldw, uint32_t* c, size_t ldc,
                             PeArrayFollower& follower);

  // Dump every signal of the array to a VCD file from now on (Verilator's SystemC tracing).
  // A file that cannot be opened is a UserError naming it. Call between sc_start() calls.
  void open_vcd(const std::string& path);

  // The model's signals and the per-size pass driver (pe_array_sc.cpp); public only so the
  // implementation's size templates can derive from it.
  class Driver;

 private:
  void drive();  // SC_THREAD: the reset, then the passes posted from outside the simulation

  uint32_t rows_;
  uint32_t cols_;
  sc_core::sc_time half_period_;
  std::unique_ptr<Driver> driver_;
  sc_core::sc_event job_posted_;
  PassMemories* job_memories_ = nullptr;
  PePass job_pass_{};
  uint64_t job_cycles_ = 0;
  bool job_finished_ = false;
  bool reset_done_ = false;
  sc_core::sc_event reset_done_event_;
  bool in_pass_ = false;
  std::unique_ptr<VerilatedVcdSc> vcd_;  // after driver_: closed before the model goes
};

}  // namespace s2::rtl
