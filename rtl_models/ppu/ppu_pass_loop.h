#pragma once
// The one pass-driving loop both harnesses (ppu_plain.cpp, ppu_sc.cpp) run, over a `Port` that
// hides how the verilated model's pins are reached and how a clock cycle is spent:
//   void configure(const PpuPass&)     op, count, width, latency, scalars, stages, types
//   void set_start(bool)
//   void tick()                        one rising and one falling clock edge
//   bool in_ready() / out_valid() / done()
//   void set_input(int k, const uint32_t* src, uint32_t n)   lanes 0..n-1 of in<k>
//   uint32_t out_count()
//   void get_output(int k, uint32_t* dst, uint32_t n)        lanes 0..n-1 of out<k>
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

// Streams the pass through the port; returns the cycles from the edge that samples start
// (with beat 0) to the edge that writes the last result, both counted (ppu.sv): the port's
// clock runs exactly that many cycles. The cycles come from the RTL's done; the harness only
// checks that it got every element back, in a bounded number of cycles.
template <class Port>
uint64_t drive_pass(Port& port, const PpuPass& pass, const PassStreams& s) {
  const uint64_t e = pass.elements;
  const uint64_t beats = (e + pass.width - 1) / pass.width;
  const uint64_t bound = pass.latency + beats;  // a hung RTL fails, never hangs
  uint64_t next_in = 0;
  uint64_t next_out = 0;
  auto present_beat = [&] {
    S2_CHECK(next_in < e, "ppu RTL asks for more than the pass's elements");
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(pass.width, e - next_in));
    for (int k = 0; k < 4; ++k)
      if (s.in[static_cast<size_t>(k)] != nullptr)
        port.set_input(k, s.in[static_cast<size_t>(k)] + next_in, n);
    next_in += n;
  };
  port.configure(pass);
  port.set_start(true);
  present_beat();  // beat 0 goes with start
  uint64_t cycles = 0;
  for (;;) {
    if (cycles > 0 && port.in_ready()) present_beat();
    port.tick();
    if (cycles == 0) port.set_start(false);
    ++cycles;
    if (port.out_valid()) {
      const uint32_t n = port.out_count();
      S2_CHECK(next_out + n <= e, "ppu RTL returned more than the pass's elements");
      for (int k = 0; k < 2; ++k)
        if (s.out[static_cast<size_t>(k)] != nullptr)
          port.get_output(k, s.out[static_cast<size_t>(k)] + next_out, n);
      next_out += n;
    }
    if (port.done()) break;
    S2_CHECK(cycles < bound, std::string("ppu RTL did not finish a ") + ppu_rtl_op_name(pass.op) +
                                 " pass within " + std::to_string(bound) + " cycles");
  }
  S2_CHECK(next_in == e && next_out == e, std::string("ppu RTL ") + ppu_rtl_op_name(pass.op) +
                                              " pass: " + std::to_string(next_in) +
                                              " elements in, " + std::to_string(next_out) +
                                              " out, of " + std::to_string(e));
  return cycles;
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
