#pragma once
// RtlPpuSc: the SystemC Verilator build of ppu.sv (LANES 32) as an sc_module implementing
// RtlPpu, for co-simulation inside s2sim. Same bits and cycles as make_rtl_ppu(32).
//
// Clocking: an SC_THREAD drives the model's clock (an sc_signal<bool>) only while a pass runs;
// there is no free-running sc_clock, so a simulation whose other processes are idle still
// runs out of events and sc_start() returns (s2sim's top relies on that).
//
// Use: create every instance before the first sc_start() (SystemC forbids creating modules
// after elaboration). A pass advances simulated time by exactly its cycles in clock periods
// (ppu.sv counts from the edge that samples start), its first rising edge at the call's time.
// run_pass() may be called
//  * from a SystemC thread process while the simulation runs: the pass is clocked in the
//    caller's thread (s2sim's units run their tiles this way; one process at a time);
//  * from outside the simulation, between sc_start() calls: it posts the pass to the driver
//    thread and calls sc_core::sc_start(), which returns once the pass is done. Every other
//    pending activity of the simulation runs during that sc_start() too.
// The driver thread resets the RTL (one cycle with rst_n low) at the start of the first
// simulation, time 0; a pass requested before that ends waits for it.
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <systemc>

#include "rtl_models/ppu/ppu_rtl.h"

class Vppu_sc;
class VerilatedVcdSc;

namespace s2::rtl {

namespace detail {
struct PassStreams;
class ScPort;
}  // namespace detail

class RtlPpuSc final : public sc_core::sc_module, public RtlPpu {
 public:
  static constexpr uint32_t kLanes = 32;
  static constexpr int kBusBits = static_cast<int>(kLanes) * 32;
  using Bus = sc_dt::sc_bv<kBusBits>;

  // clock_period_ps: the PPU clock period in picoseconds, even and >= 2 (the clock is high for
  // half of it); a UserError otherwise.
  RtlPpuSc(const sc_core::sc_module_name& name, uint64_t clock_period_ps);
  ~RtlPpuSc() override;
  RtlPpuSc(const RtlPpuSc&) = delete;
  RtlPpuSc& operator=(const RtlPpuSc&) = delete;

  uint32_t lanes() const override { return kLanes; }
  uint64_t run_pass(const PpuPass& pass, const uint32_t* in0, const uint32_t* in1,
                    const uint32_t* in2, const uint32_t* in3, uint32_t* out0,
                    uint32_t* out1) override;

  // A pass streamed beat by beat from a SystemC thread of the running simulation, the caller
  // moving the clock in step with another unit (the PE array whose drain it consumes:
  // simulator/top/rtl_tile_clock.h). Per rising edge: wants_beat() and present(n) (the next n
  // elements as this edge's beat, 0 for none; the first beat starts the pass), rise(), half a
  // period later after_rise() (true once the edge wrote the pass's last result), fall(). The
  // streams are read and written at the pass's pace, so they must outlive it.
  class Streamed {
   public:
    ~Streamed();
    Streamed(const Streamed&) = delete;
    Streamed& operator=(const Streamed&) = delete;
    bool wants_beat() const;
    uint64_t left() const;  // elements not yet presented
    void present(uint32_t n);
    void rise();
    bool after_rise();
    void fall();
    uint64_t cycles() const;  // edges from the one that took the first beat, counted

   private:
    friend class RtlPpuSc;
    struct State;
    explicit Streamed(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
  // Opens a streamed pass; a UserError for a pass outside ppu_rtl.h's contract, an internal
  // error outside a running simulation's thread process.
  std::unique_ptr<Streamed> stream_pass(const PpuPass& pass, const uint32_t* in0,
                                        const uint32_t* in1, const uint32_t* in2,
                                        const uint32_t* in3, uint32_t* out0, uint32_t* out1);

  // Dumps every signal of the RTL to a VCD file from now on (Verilator SystemC tracing). Call it
  // between sc_start() calls; if elaboration is not complete yet it completes it with
  // sc_start(SC_ZERO_TIME). A UserError naming `path` if the file cannot be opened.
  void open_vcd(const std::string& path);
  // Flushes and closes the VCD file; tracing stops. No effect if none is open.
  void close_vcd();

  sc_core::sc_time clock_period() const { return period_; }
  // The clock period the constructor takes: `ps` picoseconds, or a UserError unless even, >= 2.
  static sc_core::sc_time checked_clock_period(uint64_t ps);

 private:
  friend class detail::ScPort;
  void drive();  // SC_THREAD: runs posted passes

  sc_core::sc_time period_;
  // Inputs: written by whichever thread runs the pass (the driver, or a simulator unit's).
  template <typename T>
  using Input = sc_core::sc_signal<T, sc_core::SC_MANY_WRITERS>;
  Input<bool> clk_{"clk"}, rst_n_{"rst_n"}, start_{"start"}, in_valid_{"in_valid"};
  Input<uint32_t> op_{"op"}, count_{"count"}, in_n_{"in_n"}, latency_{"latency"}, stages_{"stages"},
      in_types_{"in_types"}, out_types_{"out_types"};
  Input<uint32_t> alpha_{"alpha"}, beta_{"beta"}, lr_{"lr"}, momentum_{"momentum"},
      weight_decay_{"weight_decay"};
  sc_core::sc_signal<bool> in_ready_{"in_ready"}, out_valid_{"out_valid"}, done_{"done"};
  sc_core::sc_signal<uint32_t> out_count_{"out_count"};
  Input<Bus> in_[4];
  sc_core::sc_signal<Bus> out_[2];
  Bus staged_[4];  // the words written so far of each input bus

  std::unique_ptr<Vppu_sc> top_;
  std::unique_ptr<VerilatedVcdSc> vcd_;

  // The posted pass (owned by run_pass's frame while the driver runs it).
  sc_core::sc_event job_event_;
  const PpuPass* job_pass_ = nullptr;
  const detail::PassStreams* job_streams_ = nullptr;
  uint64_t job_cycles_ = 0;
  std::exception_ptr job_error_;
  bool reset_done_ = false;
  sc_core::sc_event reset_done_event_;
  bool in_pass_ = false;
};

}  // namespace s2::rtl
