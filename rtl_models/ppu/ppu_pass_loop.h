#pragma once
// The pass-driving logic every harness (ppu_plain.cpp, ppu_sc.cpp) runs, over a `Port` that
// hides how the verilated model's pins are reached and how a clock cycle is spent:
//   void configure(const PpuPass&)     op, count, latency, scalars, stages, types
//   void set_start(bool)
//   void set_beat(bool valid, uint32_t n)   in_valid and in_n
//   void tick()                        one rising and one falling clock edge
//   bool in_ready() / out_valid() / done()
//   void set_input(int k, const uint32_t* src, uint32_t n)   lanes 0..n-1 of in<k>
//   uint32_t out_count()
//   void get_output(int k, uint32_t* dst, uint32_t n)        lanes 0..n-1 of out<k>
// PassStepper runs one pass edge by edge (the caller moves the clock: a streamed pass whose
// beats arrive as the PE array drains); drive_pass runs a whole pass whose data is all there.
// Internal to rtl_models/ppu.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "isa/common/errors.h"
#include "rtl_models/ppu/ppu_rtl.h"

namespace s2::rtl::detail {

struct PassStreams {
  std::array<const uint32_t*, 4> in{};  // null: not streamed (the op does not read it)
  std::array<uint32_t*, 2> out{};       // null: not collected
};

// The streams `pass` reads and writes; a UserError (naming the op) for a pass outside the
// contract of ppu_rtl.h on a PPU of `lanes` lanes.
PassStreams check_pass(const PpuPass& pass, uint32_t lanes, const uint32_t* in0,
                       const uint32_t* in1, const uint32_t* in2, const uint32_t* in3,
                       uint32_t* out0, uint32_t* out1);

// One pass, one rising edge at a time. Before each edge the caller asks wants_beat() and
// calls present(n) (n = 0: no beat at this edge; the first beat raises start); it then moves
// the clock through one rising edge and calls after_edge(), which collects the results the
// edge wrote and returns whether the pass is done (the edge wrote its last result).
template <class Port>
class PassStepper {
 public:
  PassStepper(Port& port, const PpuPass& pass, const PassStreams& s)
      : port_(port), pass_(pass), s_(s) {
    port_.configure(pass);
    port_.set_start(false);
    port_.set_beat(false, 1);
  }
  // Whether the PPU takes a beat at the coming edge if one is presented.
  bool wants_beat() const { return !started_ || (next_in_ < pass_.elements && port_.in_ready()); }
  // Elements not yet presented.
  uint64_t left() const { return pass_.elements - next_in_; }
  // Presents the next n elements (1 <= n <= min(width, left())) as the coming edge's beat, or
  // no beat (n = 0). Only when wants_beat().
  void present(uint32_t n) {
    if (n == 0) {
      port_.set_start(false);
      port_.set_beat(false, 1);
      return;
    }
    S2_CHECK(wants_beat() && n <= pass_.width && n <= left(),
             "ppu RTL: a beat of " + std::to_string(n) + " elements the pass cannot take");
    for (int k = 0; k < 4; ++k)
      if (s_.in[static_cast<size_t>(k)] != nullptr)
        port_.set_input(k, s_.in[static_cast<size_t>(k)] + next_in_, n);
    port_.set_start(!started_);
    port_.set_beat(started_, n);
    started_ = true;
    next_in_ += n;
  }
  bool started() const { return started_; }
  // After the edge: collects its results; true once the pass is done.
  bool after_edge() {
    if (started_) ++cycles_;
    if (port_.out_valid()) {
      const uint32_t n = port_.out_count();
      S2_CHECK(next_out_ + n <= pass_.elements, "ppu RTL returned more than the pass's elements");
      for (int k = 0; k < 2; ++k)
        if (s_.out[static_cast<size_t>(k)] != nullptr)
          port_.get_output(k, s_.out[static_cast<size_t>(k)] + next_out_, n);
      next_out_ += n;
    }
    if (!started_ || !port_.done()) return false;
    S2_CHECK(next_in_ == pass_.elements && next_out_ == pass_.elements,
             std::string("ppu RTL ") + ppu_rtl_op_name(pass_.op) +
                 " pass: " + std::to_string(next_in_) + " elements in, " +
                 std::to_string(next_out_) + " out, of " + std::to_string(pass_.elements));
    return true;
  }
  // Edges from the one that took the first beat, counted.
  uint64_t cycles() const { return cycles_; }

 private:
  Port& port_;
  const PpuPass& pass_;
  const PassStreams& s_;
  bool started_ = false;
  uint64_t next_in_ = 0;
  uint64_t next_out_ = 0;
  uint64_t cycles_ = 0;
};

// Streams the pass through the port, a full beat every cycle; returns the cycles from the edge
// that samples start (with beat 0) to the edge that writes the last result, both counted
// (ppu.sv): the port's clock runs exactly that many cycles. The cycles come from the RTL's
// done; the harness only checks that it got every element back, in a bounded number of cycles.
template <class Port>
uint64_t drive_pass(Port& port, const PpuPass& pass, const PassStreams& s) {
  const uint64_t beats = (pass.elements + pass.width - 1) / pass.width;
  const uint64_t bound = pass.latency + beats;  // a hung RTL fails, never hangs
  PassStepper<Port> step(port, pass, s);
  for (;;) {
    step.present(
        step.wants_beat() ? static_cast<uint32_t>(std::min<uint64_t>(pass.width, step.left())) : 0);
    port.tick();
    if (step.after_edge()) break;
    S2_CHECK(step.cycles() < bound, std::string("ppu RTL did not finish a ") +
                                        ppu_rtl_op_name(pass.op) + " pass within " +
                                        std::to_string(bound) + " cycles");
  }
  port.set_start(false);
  port.set_beat(false, 1);
  return step.cycles();
}

// The stage flags as ppu.sv's `stages` port: {gate, relu, residual, bias}.
inline uint32_t stage_bits(const PpuPass& p) {
  return (p.bias ? 1u : 0u) | (p.residual ? 2u : 0u) | (p.relu ? 4u : 0u) | (p.gate ? 8u : 0u);
}

// The element types as ppu.sv's `in_types` and `out_types` ports: two bits per stream.
inline uint32_t in_type_bits(const PpuPass& p) {
  uint32_t bits = 0;
  for (uint32_t k = 0; k < 4; ++k)
    bits |= static_cast<uint32_t>(p.in_type[k]) << (2 * k);
  return bits;
}
inline uint32_t out_type_bits(const PpuPass& p) {
  return static_cast<uint32_t>(p.out_type[0]) | static_cast<uint32_t>(p.out_type[1]) << 2;
}

}  // namespace s2::rtl::detail
