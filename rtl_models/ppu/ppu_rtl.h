#pragma once
// The PPU RTL (rtl_models/ppu/ppu.sv) behind a Verilator-free interface: one call streams one
// pass through the verilated PPU and returns the cycles it took. Two implementations: the plain
// C++ Verilator build (make_rtl_ppu, for regressions) and the SystemC build RtlPpuSc (ppu_sc.h,
// for co-simulation inside s2sim). Both give the same bits and the same cycles.
//
// Timing contract (ppu.sv): a pass of E elements at `width` elements per cycle through a
// `latency`-stage pipeline takes exactly latency + ceil(E / width) cycles, the simulator's
// ppu_pass_cycles() when width = lanes * throughput (ppu_pass_width()).
//
// Numerics: bit-exact with s2::numerics (isa/numerics/lane_ops.h) followed by numerics::store —
// inputs and scalars read with DAZ, results flushed, NaN results 0x7FC00000.
//
// Streams per op (element i of each array; arrays the op does not use may be null):
//   Add, Sub, Mul, Max, Min   out0 = in0 op in1
//   Relu                      out0 = relu(in0)
//   ReluBwd                   out0 = relu_bwd(dy = in0, y = in1)
//   Axpby                     out0 = alpha*in0 + beta*in1
//   ScaleShift                out0 = alpha*in0 + beta
//   Sgd                       in0 weight, in1 grad, in2 velocity -> out0 weight, out1 velocity
//                             (scalars lr, momentum, weight_decay). Zero momentum (after
//                             DAZ) skips the velocity: in2 is not read, out1 not written, and
//                             both may be null; out1 may be null in any case.
//                             Streams an op does not use are ignored (neither read nor written).
//   Epilogue                  in0 acc -> out0 and out1 (the same result, each stored in its
//                             own type; out1 may be null); in1 bias (already one value per
//                             element) when `bias`, in2 residual when `residual`, in3 gate
//                             when `gate`
//   Cast                      out0 = in0: with in_type / out_type, a conversion
//
// Element types: each stream has one (in_type, out_type; f32 by default). A bf16 or f16
// element is the low 16 bits of its word: the PPU's load widens it exactly to fp32
// (numerics::bf16_to_f32 / f16_to_f32; the upper 16 bits are not read) and its store rounds a
// result to it (numerics::bf16_from_f32 / f16_from_f32 of the flushed result; the upper 16
// bits are zero). The lanes compute in fp32 whatever the types.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

namespace s2::rtl {

// The values are ppu_pkg::ppu_op_e.
enum class PpuRtlOp : uint32_t {
  Add,
  Sub,
  Mul,
  Max,
  Min,
  Relu,
  ReluBwd,
  Axpby,
  ScaleShift,
  Sgd,
  Epilogue,
  Cast
};
const char* ppu_rtl_op_name(PpuRtlOp op);

// The values are fp16_widen.sv's and fp16_round.sv's modes.
enum class PpuRtlType : uint8_t { F32 = 0, Bf16 = 1, F16 = 2 };
const char* ppu_rtl_type_name(PpuRtlType type);

struct PpuPass {
  PpuRtlOp op = PpuRtlOp::Add;
  uint64_t elements = 0;  // E, 1 .. 2^32-1 (the RTL's 32-bit count)
  uint32_t width = 1;     // elements per cycle, 1 .. lanes
  uint32_t latency = 1;   // pipeline stages, 1 .. kPpuMaxLatency
  uint32_t alpha = 0, beta = 0, lr = 0, momentum = 0, weight_decay = 0;  // fp32 bits
  bool bias = false, residual = false, relu = false, gate = false;       // epilogue stages
  PpuRtlType in_type[4] = {PpuRtlType::F32, PpuRtlType::F32, PpuRtlType::F32, PpuRtlType::F32};
  PpuRtlType out_type[2] = {PpuRtlType::F32, PpuRtlType::F32};
};

// ppu.sv's MAX_LATENCY as built.
inline constexpr uint32_t kPpuMaxLatency = 64;

// width = lanes * throughput, the elements the harness presents per cycle; a UserError naming
// `where` (e.g. the config key) unless that is a whole number >= 1.
uint32_t ppu_pass_width(uint32_t lanes, double throughput, const std::string& where);

// A pass streamed beat by beat as its data comes (ppu.sv's in_valid / in_n): the PPU epilogue
// behind the PE array's drain. Per clock cycle: wants_beat(), present(n) (the next n <=
// width elements as this cycle's beat, 0 for none; the first beat starts the pass), then
// tick(), true once the cycle's edge wrote the pass's last result. The streams given when it
// was opened are read and written at its pace, so they must outlive it.
class RtlPpuStream {
 public:
  virtual ~RtlPpuStream() = default;
  virtual bool wants_beat() const = 0;
  virtual uint64_t left() const = 0;  // elements not yet presented
  virtual void present(uint32_t n) = 0;
  virtual bool tick() = 0;
  virtual uint64_t cycles() const = 0;  // edges from the one that took the first beat
};

// The beats rows of data become on their way into a streamed pass, in the order the rows
// come: a row of n elements is ceil(n / width) beats of at most `width` elements (the PE
// array's drain feeding the epilogue, pe_array.sv).
class RowBeats {
 public:
  explicit RowBeats(uint32_t width) : width_(width) {}
  void push_row(uint32_t n) {
    for (uint32_t left = n; left > 0; left -= std::min(left, width_))
      beats_.push_back(std::min(left, width_));
  }
  // Before a clock edge: presents the oldest waiting beat to `stream` (RtlPpuStream or
  // RtlPpuSc::Streamed) if it takes one, no beat otherwise.
  template <class Stream>
  void offer(Stream& stream) {
    if (!beats_.empty() && stream.wants_beat()) {
      stream.present(beats_.front());
      beats_.pop_front();
    } else {
      stream.present(0);
    }
  }

 private:
  uint32_t width_;
  std::deque<uint32_t> beats_;  // elements of each waiting beat
};

class RtlPpu {
 public:
  virtual ~RtlPpu() = default;
  virtual uint32_t lanes() const = 0;
  // Opens a streamed pass (checked as run_pass checks); the PPU runs nothing else until it is
  // done. The plain builds implement it; elsewhere it is an internal error.
  virtual std::unique_ptr<RtlPpuStream> open_stream(const PpuPass& pass, const uint32_t* in0,
                                                    const uint32_t* in1, const uint32_t* in2,
                                                    const uint32_t* in3, uint32_t* out0,
                                                    uint32_t* out1);
  // Streams one pass; returns its cycles. A UserError (naming the op) for a pass outside the
  // contract above: E, width or latency out of range, or a stream the op needs left null.
  virtual uint64_t run_pass(const PpuPass& pass, const uint32_t* in0, const uint32_t* in1,
                            const uint32_t* in2, const uint32_t* in3, uint32_t* out0,
                            uint32_t* out1) = 0;
};

// The plain C++ Verilator build with `lanes` lanes; a UserError listing the built sizes.
std::unique_ptr<RtlPpu> make_rtl_ppu(uint32_t lanes);

}  // namespace s2::rtl
