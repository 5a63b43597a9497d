#include "rtl_models/pe_array/pe_array_sc.h"

#include <array>
#include <type_traits>
#include <vector>

#include "Vpe_array_sc_16x16.h"
#include "Vpe_array_sc_32x32.h"
#include "isa/common/errors.h"
#include "rtl_models/common/sc_pass_guard.h"
#include "rtl_models/pe/pe_mode.h"
#include "rtl_models/pe_array/pe_array_memories.h"
#include "verilated.h"
#include "verilated_vcd_sc.h"

namespace s2::rtl {
namespace {

constexpr uint32_t kMaxM = 1024;       // MAX_M of the SystemC builds (pe_array.sv default)
constexpr unsigned kAccAddrBits = 10;  // $clog2(kMaxM)

// Field access on the values of Verilator's SystemC ports: bool (1 bit), uint32_t (<= 32),
// uint64_t (<= 64) or sc_bv<w> (wider); fields of up to 32 bits at any offset.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
uint32_t get(const T& v, unsigned lsb, unsigned width) {
  return static_cast<uint32_t>((static_cast<uint64_t>(v) >> lsb) & ((uint64_t{1} << width) - 1));
}
uint32_t get(const sc_dt::sc_bv_base& v, unsigned lsb, unsigned width) {
  const int word = static_cast<int>(lsb / 32);
  uint64_t pair = v.get_word(word);
  if (word + 1 < v.size()) pair |= uint64_t{v.get_word(word + 1)} << 32;
  return static_cast<uint32_t>((pair >> (lsb % 32)) & ((uint64_t{1} << width) - 1));
}
// Data fields: whole 32-bit words of an sc_bv (every data port is wider than 64 bits).
void put_word(sc_dt::sc_bv_base& v, unsigned lsb, uint32_t value) {
  v.set_word(static_cast<int>(lsb / 32), value);
}

// A 16-bit data field (an input element in a 16-bit mode), aligned to 16 bits.
void put_half(sc_dt::sc_bv_base& v, unsigned lsb, uint32_t value) {
  const int word = static_cast<int>(lsb / 32);
  const unsigned shift = lsb % 32;
  const uint32_t mask = 0xFFFFu << shift;
  v.set_word(word, (v.get_word(word) & ~mask) | ((value << shift) & mask));
}

// VerilatedVcdSc registers itself with the SystemC kernel as a trace file but never
// unregisters; the kernel would call a deleted object. Its sc_trace_file base is private, so
// only a C-style cast reaches it (the one cast that may convert to an inaccessible base).
void unregister_vcd(VerilatedVcdSc* vcd) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
  sc_core::sc_get_curr_simcontext()->remove_trace_file((sc_core::sc_trace_file*)vcd);
#pragma GCC diagnostic pop
}

}  // namespace

// The verilated model of one size with the signals bound to its ports, and the clocked
// sequence of one pass. run() must be called from the module's SC_THREAD.
class RtlPeArraySc::Driver {
 public:
  virtual ~Driver() = default;
  // Two cycles with rst_n low; the clock is left low.
  virtual void reset(const sc_core::sc_time& half) = 0;
  // One pass; `follower` (may be null) is clocked in step, and sees the drain port, which the
  // pass feeds when `drain`.
  virtual uint64_t run(const PePass& pass, PassMemories& mem, const sc_core::sc_time& half,
                       bool drain = false, PeArrayFollower* follower = nullptr) = 0;
  virtual void trace(VerilatedVcdSc* vcd) = 0;
  virtual uint32_t macs() const = 0;
};

namespace {

template <class Model, uint32_t Rows, uint32_t Cols, uint32_t Macs>
class SizedDriver final : public RtlPeArraySc::Driver {
 public:
  static constexpr unsigned kWordBits = Macs > 1 ? 16 * Macs : 32;  // pe_array.sv's XW

  SizedDriver()
      : model_("pe_array"),
        clk_("clk"),
        rst_n_("rst_n"),
        start_("start"),
        busy_("busy"),
        done_("done"),
        w_rd_en_("w_rd_en"),
        x_rd_en_("x_rd_en"),
        x_rd_valid_("x_rd_valid") {
    model_.clk(clk_);
    model_.rst_n(rst_n_);
    model_.start(start_);
    model_.cfg_mode(cfg_mode_);
    model_.cfg_m(cfg_m_);
    model_.cfg_n(cfg_n_);
    model_.cfg_k(cfg_k_);
    model_.busy(busy_);
    model_.done(done_);
    model_.w_rd_en(w_rd_en_);
    model_.w_rd_row(w_rd_row_);
    model_.w_rd_data(w_rd_data_);
    model_.x_rd_en(x_rd_en_);
    model_.x_rd_row(x_rd_row_);
    model_.x_rd_valid(x_rd_valid_);
    model_.x_rd_data(x_rd_data_);
    model_.acc_rd_en(acc_rd_en_);
    model_.acc_rd_addr(acc_rd_addr_);
    model_.acc_rd_data(acc_rd_data_);
    model_.acc_wr_en(acc_wr_en_);
    model_.acc_wr_addr(acc_wr_addr_);
    model_.acc_wr_data(acc_wr_data_);
    model_.cfg_drain(cfg_drain_);
    model_.drain_valid(drain_valid_);
    model_.drain_row(drain_row_);
    model_.drain_data(drain_data_);
  }

  void trace(VerilatedVcdSc* vcd) override { model_.trace(vcd, 99); }
  uint32_t macs() const override { return Macs; }

  void reset(const sc_core::sc_time& half) override {
    rst_n_.write(false);
    for (int i = 0; i < 2; ++i) {
      clk_.write(true);
      sc_core::wait(half);
      clk_.write(false);
      sc_core::wait(half);
    }
    rst_n_.write(true);
  }

  uint64_t run(const PePass& pass, PassMemories& mem, const sc_core::sc_time& half, bool drain,
               PeArrayFollower* follower) override {
    using sc_core::wait;
    const uint32_t slots = pass.mode == isa::DType::F32 ? 1 : Macs;
    cfg_mode_.write(static_cast<CfgMode>(pe_mode(pass.mode)));
    cfg_m_.write(static_cast<CfgM>(pass.m));
    cfg_n_.write(static_cast<CfgN>(pass.n));
    cfg_k_.write(static_cast<CfgK>(pass.k));
    cfg_drain_.write(drain);
    start_.write(true);
    wait(half);  // the clock is low; the request outputs settle
    const uint64_t watchdog = mem.watchdog_cycles(Rows, Cols);
    uint64_t cycles = 0;
    for (;;) {
      // Before the edge: answer the buffer reads, record what the SRAM sees at the edge.
      if (w_rd_en_.read()) {
        const uint32_t row = get(w_rd_row_.read(), 0, 32);
        for (uint32_t j = 0; j < Cols; ++j)
          put_word(w_data_, 32 * j, mem.weight(row, j));
        w_rd_data_.write(w_data_);
      }
      const bool x_arrives = x_rd_en_.read() && mem.input_arrives();
      if (x_arrives) {
        // Row r's word: reduction step q * Rows + r in field q (one 32-bit field in f32).
        const uint32_t i = get(x_rd_row_.read(), 0, 32);
        for (uint32_t r = 0; r < Rows; ++r)
          for (uint32_t q = 0; q < slots; ++q) {
            const uint32_t value = mem.input(i, q * Rows + r);
            if (pass.mode == isa::DType::F32)
              put_word(x_data_, kWordBits * r, value);
            else
              put_half(x_data_, kWordBits * r + 16 * q, value);
          }
        x_rd_data_.write(x_data_);
      }
      x_rd_valid_.write(x_arrives);
      reads_.clear();
      writes_.clear();
      const auto rd_en = acc_rd_en_.read();
      const auto wr_en = acc_wr_en_.read();
      for (uint32_t j = 0; j < Cols; ++j) {
        if (get(rd_en, j, 1))
          reads_.push_back({j, get(acc_rd_addr_.read(), kAccAddrBits * j, kAccAddrBits), 0});
        if (get(wr_en, j, 1))
          writes_.push_back({j, get(acc_wr_addr_.read(), kAccAddrBits * j, kAccAddrBits),
                             get(acc_wr_data_.read(), 32 * j, 32)});
      }
      const bool done = done_.read();
      if (follower != nullptr) {
        const bool drained = drain_valid_.read();
        if (drained) {
          const auto& data = drain_data_.read();
          for (uint32_t j = 0; j < Cols; ++j)
            drain_words_[j] = get(data, 32 * j, 32);
        }
        follower->before_rise(drained, get(drain_row_.read(), 0, 32), drain_words_.data());
        follower->rise();
      }
      // The data and the rising clock change in the same delta: the verilated model settles
      // its inputs' combinational logic before its clocked logic, so the edge samples the new
      // data, in one evaluation instead of two (~30% faster than a delta cycle in between).
      clk_.write(true);
      ++cycles;
      wait(half);
      if (follower != nullptr) follower->after_rise();
      // The SRAM at that edge: reads see the contents before the edge's writes.
      for (Access& a : reads_)
        a.value = mem.acc_read(a.col, a.addr);
      for (const Access& a : writes_)
        mem.acc_write(a.col, a.addr, a.value);
      if (!reads_.empty()) {
        for (const Access& a : reads_)
          put_word(acc_data_, 32 * a.col, a.value);
        acc_rd_data_.write(acc_data_);
      }
      clk_.write(false);
      if (follower != nullptr) follower->fall();
      start_.write(false);
      if (done) return cycles;
      S2_CHECK(cycles < watchdog,
               "RTL PE array (SystemC): no done after " + std::to_string(cycles) + " cycles");
      wait(half);
    }
  }

 private:
  // The port value types Verilator chose for this size.
  using CfgMode = std::remove_reference_t<decltype(std::declval<Model&>().cfg_mode.read())>;
  using CfgM = std::remove_reference_t<decltype(std::declval<Model&>().cfg_m.read())>;
  using CfgN = std::remove_reference_t<decltype(std::declval<Model&>().cfg_n.read())>;
  using CfgK = std::remove_reference_t<decltype(std::declval<Model&>().cfg_k.read())>;
  template <typename Port>
  using Value =
      std::remove_const_t<std::remove_reference_t<decltype(std::declval<Port&>().read())>>;
  template <typename Port>
  using Signal = sc_core::sc_signal<Value<Port>>;
  // The harness's inputs are written by whichever thread runs the pass (the driver thread, or
  // a simulator unit's thread calling run_pass() from inside the simulation).
  template <typename T>
  using Input = sc_core::sc_signal<T, sc_core::SC_MANY_WRITERS>;
  template <typename Port>
  using InputSignal = Input<Value<Port>>;

  struct Access {
    uint32_t col;
    uint32_t addr;
    uint32_t value;
  };

  Model model_;
  Input<bool> clk_;
  Input<bool> rst_n_;
  Input<bool> start_;
  InputSignal<decltype(Model::cfg_mode)> cfg_mode_;
  InputSignal<decltype(Model::cfg_m)> cfg_m_;
  InputSignal<decltype(Model::cfg_n)> cfg_n_;
  InputSignal<decltype(Model::cfg_k)> cfg_k_;
  sc_core::sc_signal<bool> busy_;
  sc_core::sc_signal<bool> done_;
  sc_core::sc_signal<bool> w_rd_en_;
  Signal<decltype(Model::w_rd_row)> w_rd_row_;
  InputSignal<decltype(Model::w_rd_data)> w_rd_data_;
  sc_core::sc_signal<bool> x_rd_en_;
  Input<bool> x_rd_valid_;
  Signal<decltype(Model::x_rd_row)> x_rd_row_;
  InputSignal<decltype(Model::x_rd_data)> x_rd_data_;
  Signal<decltype(Model::acc_rd_en)> acc_rd_en_;
  Signal<decltype(Model::acc_rd_addr)> acc_rd_addr_;
  InputSignal<decltype(Model::acc_rd_data)> acc_rd_data_;
  Signal<decltype(Model::acc_wr_en)> acc_wr_en_;
  Signal<decltype(Model::acc_wr_addr)> acc_wr_addr_;
  Signal<decltype(Model::acc_wr_data)> acc_wr_data_;
  Input<bool> cfg_drain_{"cfg_drain"};
  sc_core::sc_signal<bool> drain_valid_{"drain_valid"};
  Signal<decltype(Model::drain_row)> drain_row_;
  Signal<decltype(Model::drain_data)> drain_data_;
  std::array<uint32_t, Cols> drain_words_{};
  // Shadows of the wide data inputs, written to their signals once per cycle.
  Value<decltype(Model::w_rd_data)> w_data_;
  Value<decltype(Model::x_rd_data)> x_data_;
  Value<decltype(Model::acc_rd_data)> acc_data_;
  std::vector<Access> reads_;
  std::vector<Access> writes_;
};

}  // namespace

RtlPeArraySc::RtlPeArraySc(sc_core::sc_module_name name, uint32_t rows, uint32_t cols,
                           uint64_t clock_period_ps)
    : sc_core::sc_module(name), rows_(rows), cols_(cols) {
  if (clock_period_ps < 2 || clock_period_ps % 2 != 0)
    throw UserError(std::string(basename()) +
                    ": clock period must be an even number of ps >= 2, got " +
                    std::to_string(clock_period_ps));
  half_period_ = sc_core::sc_time(static_cast<double>(clock_period_ps / 2), sc_core::SC_PS);
  // Tracing can only be enabled before the model exists (Verilator rule); it costs nothing
  // until a VCD file is opened.
  Verilated::traceEverOn(true);
  // rows, cols, MACS: rtl_models/pe_array/CMakeLists.part.cmake's SystemC builds.
  if (rows == 32 && cols == 32)
    driver_ = std::make_unique<SizedDriver<Vpe_array_sc_32x32, 32, 32, 4>>();
  else if (rows == 16 && cols == 16)
    driver_ = std::make_unique<SizedDriver<Vpe_array_sc_16x16, 16, 16, 2>>();
  else
    throw UserError("no SystemC RTL PE array of " + std::to_string(rows) + "x" +
                    std::to_string(cols) +
                    " is built; built sizes (rows x cols): 32x32, 16x16 "
                    "(rtl_models/pe_array/CMakeLists.part.cmake)");
  SC_HAS_PROCESS(RtlPeArraySc);
  SC_THREAD(drive);
}

RtlPeArraySc::~RtlPeArraySc() {
  if (vcd_) {
    unregister_vcd(vcd_.get());
    vcd_->close();
  }
}

uint32_t RtlPeArraySc::max_m() const {
  return kMaxM;
}

uint32_t RtlPeArraySc::macs() const {
  return driver_->macs();
}

void RtlPeArraySc::drive() {
  driver_->reset(half_period_);  // at the start of the first simulation, time 0
  reset_done_ = true;
  reset_done_event_.notify(sc_core::SC_ZERO_TIME);
  for (;;) {
    while (job_memories_ == nullptr || job_finished_)  // a post may come during the reset
      sc_core::wait(job_posted_);
    job_cycles_ = driver_->run(job_pass_, *job_memories_, half_period_);
    job_finished_ = true;
  }
}

uint64_t RtlPeArraySc::run_pass(const PePass& pass, const uint32_t* x, size_t ldx,
                                const uint32_t* w, size_t ldw, uint32_t* c, size_t ldc) {
  check_pass(pass, ldx, ldw, ldc, "SystemC RTL PE array");
  PassMemories mem(pass, x, ldx, w, ldw, c, ldc, rows_, input_bytes_per_cycle());
  if (called_inside_simulation()) {  // from a unit's thread: clock the pass here
    const InSimulationPass guard(name(), reset_done_, reset_done_event_, in_pass_);
    return driver_->run(pass, mem, half_period_);
  }
  // Before the first sc_start(): finish elaboration so the driver thread exists.
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  S2_CHECK(!in_pass_, std::string(name()) + ": run_pass() re-entered");
  in_pass_ = true;
  job_memories_ = &mem;
  job_pass_ = pass;
  job_finished_ = false;
  job_posted_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  job_memories_ = nullptr;
  in_pass_ = false;
  S2_CHECK(job_finished_, std::string(name()) +
                              ": sc_start() returned before the pass finished (was the "
                              "simulation stopped?)");
  return job_cycles_;
}

uint64_t RtlPeArraySc::run_followed_pass(const PePass& pass, bool drain, const uint32_t* x,
                                         size_t ldx, const uint32_t* w, size_t ldw, uint32_t* c,
                                         size_t ldc, PeArrayFollower& follower) {
  check_pass(pass, ldx, ldw, ldc, "SystemC RTL PE array");
  S2_CHECK(called_inside_simulation(),
           std::string(name()) + ": a followed pass runs inside the simulation only");
  PassMemories mem(pass, x, ldx, w, ldw, c, ldc, rows_, input_bytes_per_cycle());
  const InSimulationPass guard(name(), reset_done_, reset_done_event_, in_pass_);
  return driver_->run(pass, mem, half_period_, drain, &follower);
}

void RtlPeArraySc::open_vcd(const std::string& path) {
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  auto vcd = std::make_unique<VerilatedVcdSc>();
  driver_->trace(vcd.get());
  vcd->open(path.c_str());
  if (!vcd->isOpen()) {
    unregister_vcd(vcd.get());
    throw UserError(path + ": cannot open the VCD file for " + name());
  }
  if (vcd_) unregister_vcd(vcd_.get());
  vcd_ = std::move(vcd);
}

}  // namespace s2::rtl
