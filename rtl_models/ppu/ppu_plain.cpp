// make_rtl_ppu: the plain C++ Verilator builds of ppu.sv (one verilated class per lane count)
// behind RtlPpu.
#include <type_traits>

#include "Vppu_l16.h"
#include "Vppu_l32.h"
#include "isa/common/errors.h"
#include "rtl_models/common/own_context_model.h"
#include "rtl_models/ppu/ppu_pass_loop.h"
#include "rtl_models/ppu/ppu_rtl.h"
#include "verilated.h"

namespace s2::rtl {
namespace {

template <class Field, class Value>
void set_pin(Field& field, Value value) {
  field = static_cast<std::remove_reference_t<Field>>(value);
}

// The Port of drive_pass over a verilated top: pins are members, a tick is two eval()s.
template <class VTop>
class PlainPort {
 public:
  explicit PlainPort(VTop& top) : top_(top) {}
  void configure(const PpuPass& p) {
    set_pin(top_.op, static_cast<uint32_t>(p.op));
    set_pin(top_.count, p.elements);
    set_pin(top_.latency, p.latency);
    set_pin(top_.alpha, p.alpha);
    set_pin(top_.beta, p.beta);
    set_pin(top_.lr, p.lr);
    set_pin(top_.momentum, p.momentum);
    set_pin(top_.weight_decay, p.weight_decay);
    set_pin(top_.stages, detail::stage_bits(p));
    set_pin(top_.in_types, detail::in_type_bits(p));
    set_pin(top_.out_types, detail::out_type_bits(p));
  }
  void set_start(bool v) { top_.start = v; }
  void set_beat(bool valid, uint32_t n) {
    top_.in_valid = valid;
    set_pin(top_.in_n, n);
  }
  void set_reset(bool active) { top_.rst_n = !active; }
  void tick() {
    top_.clk = 1;
    top_.eval();
    top_.clk = 0;
    top_.eval();
  }
  bool in_ready() const { return top_.in_ready != 0; }
  bool out_valid() const { return top_.out_valid != 0; }
  bool done() const { return top_.done != 0; }
  uint32_t out_count() const { return top_.out_count; }
  void set_input(int k, const uint32_t* src, uint32_t n) {
    auto& pins = k == 0 ? top_.in0 : k == 1 ? top_.in1 : k == 2 ? top_.in2 : top_.in3;
    for (uint32_t i = 0; i < n; ++i)
      pins[i] = src[i];
  }
  void get_output(int k, uint32_t* dst, uint32_t n) const {
    const auto& pins = k == 0 ? top_.out0 : top_.out1;
    for (uint32_t i = 0; i < n; ++i)
      dst[i] = pins[i];
  }

 private:
  VTop& top_;
};

template <class VTop>
class PlainStream final : public RtlPpuStream {
 public:
  PlainStream(PlainPort<VTop>& port, const PpuPass& pass, const detail::PassStreams& s)
      : port_(port), pass_(pass), streams_(s), step_(port_, pass_, streams_) {}
  ~PlainStream() override {
    port_.set_start(false);
    port_.set_beat(false, 1);
  }
  PlainStream(const PlainStream&) = delete;
  PlainStream& operator=(const PlainStream&) = delete;
  bool wants_beat() const override { return !done_ && step_.wants_beat(); }
  uint64_t left() const override { return step_.left(); }
  void present(uint32_t n) override { step_.present(n); }
  bool tick() override {
    port_.tick();
    if (!done_) done_ = step_.after_edge();
    return done_;
  }
  uint64_t cycles() const override { return step_.cycles(); }

 private:
  PlainPort<VTop>& port_;
  PpuPass pass_;
  detail::PassStreams streams_;
  detail::PassStepper<PlainPort<VTop>> step_;
  bool done_ = false;
};

template <class VTop>
class PlainPpu final : public RtlPpu {
 public:
  explicit PlainPpu(uint32_t lanes) : lanes_(lanes), top_("ppu"), port_(*top_) {
    // Synchronous reset: one cycle with rst_n low.
    port_.set_start(false);
    port_.set_reset(true);
    port_.tick();
    port_.set_reset(false);
  }
  PlainPpu(const PlainPpu&) = delete;
  PlainPpu& operator=(const PlainPpu&) = delete;

  uint32_t lanes() const override { return lanes_; }
  uint64_t run_pass(const PpuPass& pass, const uint32_t* in0, const uint32_t* in1,
                    const uint32_t* in2, const uint32_t* in3, uint32_t* out0,
                    uint32_t* out1) override {
    const detail::PassStreams s = detail::check_pass(pass, lanes_, in0, in1, in2, in3, out0, out1);
    return detail::drive_pass(port_, pass, s);
  }
  std::unique_ptr<RtlPpuStream> open_stream(const PpuPass& pass, const uint32_t* in0,
                                            const uint32_t* in1, const uint32_t* in2,
                                            const uint32_t* in3, uint32_t* out0,
                                            uint32_t* out1) override {
    const detail::PassStreams s = detail::check_pass(pass, lanes_, in0, in1, in2, in3, out0, out1);
    return std::make_unique<PlainStream<VTop>>(port_, pass, s);
  }

 private:
  uint32_t lanes_;
  OwnContextModel<VTop> top_;
  PlainPort<VTop> port_;
};

}  // namespace

std::unique_ptr<RtlPpu> make_rtl_ppu(uint32_t lanes) {
  switch (lanes) {
    case 32:
      return std::make_unique<PlainPpu<Vppu_l32>>(lanes);
    case 16:
      return std::make_unique<PlainPpu<Vppu_l16>>(lanes);
    default:
      throw UserError("ppu RTL: no plain Verilator build with " + std::to_string(lanes) +
                      " lanes; built: 32, 16 (rtl_models/ppu/CMakeLists.part.cmake)");
  }
}

}  // namespace s2::rtl
