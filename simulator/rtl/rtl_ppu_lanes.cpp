#include "simulator/rtl/rtl_ppu_lanes.h"

#include <algorithm>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/common/hex.h"
#include "isa/numerics/fp32.h"
#include "simulator/timing/ppu_model.h"

namespace s2::sim::rtl {
namespace {

using functional::LaneOp;
using s2::rtl::PpuRtlOp;

}  // namespace

std::optional<PpuRtlOp> to_rtl_op(LaneOp op) {
  switch (op) {
    case LaneOp::Add:
      return PpuRtlOp::Add;
    case LaneOp::Sub:
      return PpuRtlOp::Sub;
    case LaneOp::Mul:
      return PpuRtlOp::Mul;
    case LaneOp::Max:
      return PpuRtlOp::Max;
    case LaneOp::Min:
      return PpuRtlOp::Min;
    case LaneOp::Relu:
      return PpuRtlOp::Relu;
    case LaneOp::ReluBwd:
      return PpuRtlOp::ReluBwd;
    case LaneOp::Act:
    case LaneOp::ActBwd:
      return std::nullopt;
    case LaneOp::Axpby:
      return PpuRtlOp::Axpby;
    case LaneOp::ScaleShift:
      return PpuRtlOp::ScaleShift;
    case LaneOp::Sgd:
      return PpuRtlOp::Sgd;
    case LaneOp::Epilogue:
      return PpuRtlOp::Epilogue;
  }
  throw InternalError("RTL PPU: unknown lane op");
}

std::string rtl_ppu_missing(const functional::LanePass& pass) {
  const std::string act(isa::activation_name(pass.act));
  if (pass.op == LaneOp::Act) return "act " + act;
  if (pass.op == LaneOp::ActBwd) return "act_bwd " + act;
  const isa::Activation stage = pass.stages.act;
  if (pass.op == LaneOp::Epilogue && stage != isa::Activation::None &&
      stage != isa::Activation::Relu)
    return "epilogue act " + std::string(isa::activation_name(stage));
  return {};
}

namespace {

// The target's cost entry a lane pass is charged to.
target::PpuOp cost_entry(LaneOp op) {
  if (op == LaneOp::Epilogue) return target::PpuOp::Epilogue;
  if (op == LaneOp::Sgd) return target::PpuOp::Sgd;
  return target::PpuOp::Eltwise;
}

// The RTL's element count is 32 bits; longer passes stream in chunks of this many.
constexpr size_t kMaxChunk = size_t{1} << 30;

}  // namespace

void check_rtl_ppu_target(const target::TargetDesc& target) {
  const uint64_t port = uint64_t{target.sram.output.banks} * target.sram.output.bank_width_bytes;
  if (port < 4ull * target.ppu.lanes)
    target.fail("sram.output",
                "takes " + std::to_string(port) + " bytes per cycle; the PPU RTL writes its " +
                    std::to_string(target.ppu.lanes) +
                    " lanes' fp32 results every cycle, so --rtl ppu needs at least " +
                    std::to_string(4ull * target.ppu.lanes));
}

RtlPpuLanes::RtlPpuLanes(s2::rtl::RtlPpu& rtl, const target::TargetDesc& target, CosimLog& log)
    : rtl_(rtl), target_(target), log_(log) {
  check_rtl_ppu_target(target);
  if (rtl.lanes() != target.ppu.lanes)
    target.fail("ppu.lanes", "the PPU RTL is built with " + std::to_string(rtl.lanes()) +
                                 " lanes, the configuration has " +
                                 std::to_string(target.ppu.lanes) + "; --rtl ppu needs them equal");
}

void RtlPpuLanes::run(const functional::LanePass& pass, const float* in0, const float* in1,
                      const float* in2, const float* in3, float* out0, float* out1) {
  const std::string missing = rtl_ppu_missing(pass);
  if (!missing.empty()) {
    model_.run(pass, in0, in1, in2, in3, out0, out1);
    ++log_.ppu.model_passes;
    log_.ppu.model_ops.insert(missing);
    return;
  }
  const target::PpuOp entry = cost_entry(pass.op);
  const target::PpuOpCost& cost = target_.ppu.cost(entry);
  const std::string key = "ppu.ops." + std::string(target::name(entry));
  s2::rtl::PpuPass p;
  p.op = *to_rtl_op(pass.op);
  p.width = s2::rtl::ppu_pass_width(target_.ppu.lanes, cost.throughput,
                                    target_.where(key + ".throughput"));
  p.latency = cost.latency;
  p.alpha = f32_bits(pass.alpha);
  p.beta = f32_bits(pass.beta);
  p.lr = f32_bits(pass.sgd.lr);
  p.momentum = f32_bits(pass.sgd.momentum);
  p.weight_decay = f32_bits(pass.sgd.weight_decay);
  p.bias = pass.stages.bias;
  p.residual = pass.stages.residual;
  p.relu = pass.stages.act == isa::Activation::Relu;
  p.gate = pass.stages.gate;
  const bool second_output = pass.op == LaneOp::Sgd && pass.sgd.momentum != 0.0f && out1;

  for (size_t at = 0; at < pass.elements; at += kMaxChunk) {
    const size_t n = std::min(kMaxChunk, pass.elements - at);
    auto words = [&](const float* v) { return v ? f32_words(v + at, n) : std::vector<uint32_t>(); };
    const std::vector<uint32_t> w0 = words(in0), w1 = words(in1), w2 = words(in2), w3 = words(in3);
    // The model first: outputs may alias inputs.
    std::vector<float> m0(n), m1(n);
    functional::LanePass chunk = pass;
    chunk.elements = n;
    auto at_or_null = [&](const float* v) { return v ? v + at : nullptr; };
    model_.run(chunk, at_or_null(in0), at_or_null(in1), at_or_null(in2), at_or_null(in3), m0.data(),
               second_output ? m1.data() : nullptr);

    std::vector<uint32_t> r0(n), r1(second_output ? n : 0);
    p.elements = n;
    auto ptr = [](const std::vector<uint32_t>& v) { return v.empty() ? nullptr : v.data(); };
    const uint64_t cycles = rtl_.run_pass(p, ptr(w0), ptr(w1), ptr(w2), ptr(w3), r0.data(),
                                          second_output ? r1.data() : nullptr);
    const uint64_t model_cycles = timing::ppu_pass_cycles(target_, entry, n);

    UnitCosim& u = log_.ppu;
    ++u.passes;
    u.rtl_cycles += cycles;
    u.model_cycles += model_cycles;
    u.elements += n * (second_output ? 2 : 1);
    std::string divergence;
    if (cycles != model_cycles)
      divergence =
          "cycles: RTL " + std::to_string(cycles) + ", model " + std::to_string(model_cycles);
    for (size_t i = 0; i < n && divergence.empty(); ++i) {
      const uint32_t want0 = f32_bits(numerics::store(m0[i]));
      if (r0[i] != want0)
        divergence = "out0[" + std::to_string(at + i) + "]: RTL " + s2::hex32(r0[i]) + ", model " +
                     s2::hex32(want0);
      else if (second_output && r1[i] != f32_bits(numerics::store(m1[i])))
        divergence = "out1[" + std::to_string(at + i) + "]: RTL " + s2::hex32(r1[i]) + ", model " +
                     s2::hex32(f32_bits(numerics::store(m1[i])));
    }
    if (!divergence.empty()) {
      ++u.divergences;
      if (u.first.empty())
        u.first = log_.context + ": ppu pass " + std::to_string(u.passes) + " (" +
                  s2::rtl::ppu_rtl_op_name(p.op) + ", " + std::to_string(n) + " elements, width " +
                  std::to_string(p.width) + ", latency " + std::to_string(p.latency) +
                  "): " + divergence;
    }
    f32_from_words(r0, out0 + at);
    if (second_output) f32_from_words(r1, out1 + at);
  }
}

}  // namespace s2::sim::rtl
