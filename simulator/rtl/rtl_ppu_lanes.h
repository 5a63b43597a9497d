#pragma once
// The PPU RTL behind the functional model's PpuLanes (simulator/functional/ppu_lanes.h): each
// lane pass streams through the verilated PPU at width = lanes * throughput and the latency of
// the op's entry in the target's ppu.ops table (eltwise ops: `eltwise`; sgd: `sgd`; the PE
// epilogue: `epilogue`), and the RTL's result is what the datapath continues with. Every pass
// is also computed by the C++ model (ModelPpuLanes) and its cycles by the timing model
// (timing::ppu_pass_cycles); a difference in any output bit or in the cycle count is recorded
// in the CosimLog with the op, the pass, the element and both values in hex. A pass the RTL
// cannot run (rtl_ppu_missing) is computed by the model and counted as such in the log.
#include <optional>
#include <string>

#include "isa/target/target_desc.h"
#include "rtl_models/ppu/ppu_rtl.h"
#include "simulator/functional/ppu_lanes.h"
#include "simulator/rtl/cosim_log.h"

namespace s2::sim::rtl {

// The RTL's op for a lane op (the same operations, named alike); nullopt for the lane ops the
// RTL does not implement (the activation functions other than relu: Act, ActBwd).
std::optional<s2::rtl::PpuRtlOp> to_rtl_op(functional::LaneOp op);

// The RTL's element type for a stream's type (f32, bf16, f16); nullopt for the others.
std::optional<s2::rtl::PpuRtlType> to_rtl_type(isa::DType type);
// A stream element (a datapath value of `type`, widened exactly) as the RTL's input word: a
// 16-bit type's pattern in the low half.
uint32_t stream_word(isa::DType type, float value);
// A result as the PPU's store writes it in `type`: flushed (numerics::store), then rounded to
// a 16-bit type's pattern (numerics::bf16_from_f32 / f16_from_f32).
uint32_t stored_word(isa::DType type, float result);
// A stored word read back into the datapath: a 16-bit pattern widened exactly.
float widened(isa::DType type, uint32_t word);

// What the RTL lacks to run `pass` ("act sigmoid", "epilogue act silu"), empty when it can.
std::string rtl_ppu_missing(const functional::LanePass& pass);

// UserError naming the config key unless the target's PPU is one the RTL can stand in for:
// an output buffer port that takes every lane's result each cycle (the RTL does not stall).
void check_rtl_ppu_target(const target::TargetDesc& target);

class RtlPpuLanes final : public functional::PpuLanes {
 public:
  // The RTL's lanes must equal the target's ppu.lanes (a UserError otherwise).
  RtlPpuLanes(s2::rtl::RtlPpu& rtl, const target::TargetDesc& target, CosimLog& log);
  void run(const functional::LanePass& pass, const float* in0, const float* in1, const float* in2,
           const float* in3, float* out0, float* out1) override;

 private:
  s2::rtl::RtlPpu& rtl_;
  const target::TargetDesc& target_;
  CosimLog& log_;
  functional::ModelPpuLanes model_;
};

}  // namespace s2::sim::rtl
