#include "rtl_models/ppu/ppu_sc.h"

#include "Vppu_sc.h"
#include "isa/common/errors.h"
#include "rtl_models/common/sc_pass_guard.h"
#include "rtl_models/ppu/ppu_pass_loop.h"
#include "verilated.h"
#include "verilated_vcd_sc.h"

namespace s2::rtl {

namespace detail {

// The Port of drive_pass over the SystemC model: pins are the module's signals, a tick waits
// a clock period in the driver thread.
class ScPort {
 public:
  explicit ScPort(RtlPpuSc& m) : m_(m), half_(m.period_ / 2.0) {}
  void configure(const PpuPass& p) {
    m_.op_.write(static_cast<uint32_t>(p.op));
    m_.count_.write(static_cast<uint32_t>(p.elements));
    m_.latency_.write(p.latency);
    m_.alpha_.write(p.alpha);
    m_.beta_.write(p.beta);
    m_.lr_.write(p.lr);
    m_.momentum_.write(p.momentum);
    m_.weight_decay_.write(p.weight_decay);
    m_.stages_.write(stage_bits(p));
    m_.in_types_.write(in_type_bits(p));
    m_.out_types_.write(out_type_bits(p));
  }
  void set_start(bool v) { m_.start_.write(v); }
  void set_beat(bool valid, uint32_t n) {
    m_.in_valid_.write(valid);
    m_.in_n_.write(n);
  }
  void set_reset(bool active) { m_.rst_n_.write(!active); }
  void tick() {
    rise();
    sc_core::wait(half_);
    fall();
    sc_core::wait(half_);
  }
  void rise() { m_.clk_.write(true); }
  void fall() { m_.clk_.write(false); }
  bool in_ready() const { return m_.in_ready_.read(); }
  bool out_valid() const { return m_.out_valid_.read(); }
  bool done() const { return m_.done_.read(); }
  uint32_t out_count() const { return m_.out_count_.read(); }
  void set_input(int k, const uint32_t* src, uint32_t n) {
    RtlPpuSc::Bus& bus = m_.staged_[k];
    for (uint32_t i = 0; i < n; ++i)
      bus.set_word(static_cast<int>(i), src[i]);
    m_.in_[k].write(bus);
  }
  void get_output(int k, uint32_t* dst, uint32_t n) const {
    const RtlPpuSc::Bus& bus = m_.out_[k].read();
    for (uint32_t i = 0; i < n; ++i)
      dst[i] = bus.get_word(static_cast<int>(i));
  }

 private:
  RtlPpuSc& m_;
  sc_core::sc_time half_;
};

}  // namespace detail

sc_core::sc_time RtlPpuSc::checked_clock_period(uint64_t ps) {
  if (ps < 2 || ps % 2 != 0)
    throw UserError("ppu RTL (SystemC): clock period " + std::to_string(ps) +
                    " ps; it must be even and >= 2 ps");
  return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

RtlPpuSc::RtlPpuSc(const sc_core::sc_module_name& name, uint64_t clock_period_ps)
    : sc_core::sc_module(name), period_(checked_clock_period(clock_period_ps)) {
  Verilated::traceEverOn(true);  // before the model is built, so open_vcd() can trace it
  top_ = std::make_unique<Vppu_sc>("rtl");
  top_->clk(clk_);
  top_->rst_n(rst_n_);
  top_->start(start_);
  top_->op(op_);
  top_->count(count_);
  top_->latency(latency_);
  top_->alpha(alpha_);
  top_->beta(beta_);
  top_->lr(lr_);
  top_->momentum(momentum_);
  top_->weight_decay(weight_decay_);
  top_->stages(stages_);
  top_->in_types(in_types_);
  top_->out_types(out_types_);
  top_->in_ready(in_ready_);
  top_->in_valid(in_valid_);
  top_->in_n(in_n_);
  top_->in0(in_[0]);
  top_->in1(in_[1]);
  top_->in2(in_[2]);
  top_->in3(in_[3]);
  top_->out_valid(out_valid_);
  top_->out_count(out_count_);
  top_->out0(out_[0]);
  top_->out1(out_[1]);
  top_->done(done_);
  SC_HAS_PROCESS(RtlPpuSc);
  SC_THREAD(drive);
}

RtlPpuSc::~RtlPpuSc() {
  if (vcd_) vcd_->close();
  top_->final();
}

void RtlPpuSc::drive() {
  detail::ScPort port(*this);
  // Synchronous reset, one cycle with rst_n low, at the start of the first simulation.
  port.set_start(false);
  port.set_reset(true);
  port.tick();
  port.set_reset(false);
  reset_done_ = true;
  reset_done_event_.notify(sc_core::SC_ZERO_TIME);
  for (;;) {
    while (job_pass_ == nullptr)
      sc_core::wait(job_event_);
    try {
      job_cycles_ = detail::drive_pass(port, *job_pass_, *job_streams_);
    } catch (...) {
      job_error_ = std::current_exception();
    }
    job_pass_ = nullptr;
    job_streams_ = nullptr;
  }
}

uint64_t RtlPpuSc::run_pass(const PpuPass& pass, const uint32_t* in0, const uint32_t* in1,
                            const uint32_t* in2, const uint32_t* in3, uint32_t* out0,
                            uint32_t* out1) {
  const detail::PassStreams s = detail::check_pass(pass, kLanes, in0, in1, in2, in3, out0, out1);
  if (called_inside_simulation()) {  // from a unit's thread: clock the pass here
    const InSimulationPass guard(name(), reset_done_, reset_done_event_, in_pass_);
    detail::ScPort port(*this);
    return detail::drive_pass(port, pass, s);
  }
  S2_CHECK(job_pass_ == nullptr && !in_pass_,
           std::string(name()) + ": run_pass re-entered, or called after a pass was stopped");
  job_pass_ = &pass;
  job_streams_ = &s;
  job_error_ = nullptr;
  job_event_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  if (job_pass_ != nullptr) {
    // sc_start() returned with the pass unfinished: someone called sc_stop(). The driver is
    // suspended mid-pass on this call's streams; the instance cannot be used again.
    throw InternalError(std::string(name()) + ": the simulation stopped inside a " +
                        ppu_rtl_op_name(pass.op) + " pass");
  }
  if (job_error_) std::rethrow_exception(job_error_);
  return job_cycles_;
}

struct RtlPpuSc::Streamed::State {
  State(RtlPpuSc& m, const PpuPass& p, const detail::PassStreams& s)
      : guard(m.name(), m.reset_done_, m.reset_done_event_, m.in_pass_),
        pass(p),
        streams(s),
        port(m),
        step(port, pass, streams) {}
  InSimulationPass guard;
  PpuPass pass;
  detail::PassStreams streams;
  detail::ScPort port;
  detail::PassStepper<detail::ScPort> step;
  bool done = false;
};

RtlPpuSc::Streamed::Streamed(std::unique_ptr<State> state) : state_(std::move(state)) {}
RtlPpuSc::Streamed::~Streamed() {
  state_->port.set_start(false);
  state_->port.set_beat(false, 1);
}
bool RtlPpuSc::Streamed::wants_beat() const {
  return !state_->done && state_->step.wants_beat();
}
uint64_t RtlPpuSc::Streamed::left() const {
  return state_->step.left();
}
void RtlPpuSc::Streamed::present(uint32_t n) {
  state_->step.present(n);
}
void RtlPpuSc::Streamed::rise() {
  state_->port.rise();
}
bool RtlPpuSc::Streamed::after_rise() {
  if (!state_->done) state_->done = state_->step.after_edge();
  return state_->done;
}
void RtlPpuSc::Streamed::fall() {
  state_->port.fall();
}
uint64_t RtlPpuSc::Streamed::cycles() const {
  return state_->step.cycles();
}

std::unique_ptr<RtlPpuSc::Streamed> RtlPpuSc::stream_pass(const PpuPass& pass, const uint32_t* in0,
                                                          const uint32_t* in1, const uint32_t* in2,
                                                          const uint32_t* in3, uint32_t* out0,
                                                          uint32_t* out1) {
  const detail::PassStreams s = detail::check_pass(pass, kLanes, in0, in1, in2, in3, out0, out1);
  S2_CHECK(called_inside_simulation(),
           std::string(name()) + ": a streamed pass runs inside the simulation only");
  return std::unique_ptr<Streamed>(new Streamed(std::make_unique<Streamed::State>(*this, pass, s)));
}

void RtlPpuSc::open_vcd(const std::string& path) {
  if (!sc_core::sc_get_curr_simcontext()->elaboration_done())
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  if (!vcd_) {
    vcd_ = std::make_unique<VerilatedVcdSc>();
    top_->trace(vcd_.get(), 99);
  }
  vcd_->open(path.c_str());
  if (!vcd_->isOpen())
    throw UserError("ppu RTL (SystemC): cannot open VCD file '" + path + "' for writing");
}

void RtlPpuSc::close_vcd() {
  if (vcd_) vcd_->close();
}

}  // namespace s2::rtl
