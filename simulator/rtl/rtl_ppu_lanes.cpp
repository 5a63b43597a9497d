#include "simulator/rtl/rtl_ppu_lanes.h"

#include <algorithm>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/common/hex.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"
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
    case LaneOp::Cast:
      return PpuRtlOp::Cast;
  }
  throw InternalError("RTL PPU: unknown lane op");
}

std::optional<s2::rtl::PpuRtlType> to_rtl_type(isa::DType type) {
  switch (type) {
    case isa::DType::F32:
      return s2::rtl::PpuRtlType::F32;
    case isa::DType::BF16:
      return s2::rtl::PpuRtlType::Bf16;
    case isa::DType::F16:
      return s2::rtl::PpuRtlType::F16;
    default:
      return std::nullopt;
  }
}

uint32_t stream_word(isa::DType type, float value) {
  if (type == isa::DType::BF16) return f32_bits(value) >> 16;  // exact: value is a bf16's
  if (type == isa::DType::F16) return numerics::f16_from_f32(value);
  return f32_bits(value);
}

uint32_t stored_word(isa::DType type, float result) {
  const float flushed = numerics::store(result);
  if (type == isa::DType::F32) return f32_bits(flushed);
  return numerics::bits16_from_f32(type, flushed);
}

float widened(isa::DType type, uint32_t word) {
  if (type == isa::DType::F32) return f32_from_bits(word);
  return numerics::f32_from_bits16(type, static_cast<uint16_t>(word));
}

std::string rtl_ppu_missing(const functional::LanePass& pass) {
  const std::string act(isa::activation_name(pass.act));
  if (pass.op == LaneOp::Act) return "act " + act;
  if (pass.op == LaneOp::ActBwd) return "act_bwd " + act;
  const isa::Activation stage = pass.stages.act;
  if (pass.op == LaneOp::Epilogue && stage != isa::Activation::None &&
      stage != isa::Activation::Relu)
    return "epilogue act " + std::string(isa::activation_name(stage));
  if (pass.op == LaneOp::Epilogue && pass.stages.gate &&
      pass.stages.gate_act != isa::Activation::Relu)
    return "epilogue gate " + std::string(isa::activation_name(pass.stages.gate_act));
  for (isa::DType t : pass.in_type)
    if (!to_rtl_type(t)) return "load of " + std::string(isa::dtype_name(t));
  for (isa::DType t : pass.out_type)
    if (!to_rtl_type(t)) return "store of " + std::string(isa::dtype_name(t));
  return {};
}

namespace {

// The target's cost entry a lane pass is charged to.
target::PpuOp cost_entry(LaneOp op) {
  if (op == LaneOp::Epilogue) return target::PpuOp::Epilogue;
  if (op == LaneOp::Sgd) return target::PpuOp::Sgd;
  if (op == LaneOp::Cast) return target::PpuOp::Cast;
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
  if (pass.elements == 0) return;  // nothing to compute (an empty tensor); the RTL needs >= 1
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
  for (size_t k = 0; k < 4; ++k)
    p.in_type[k] = *to_rtl_type(pass.in_type[k]);
  for (size_t k = 0; k < 2; ++k)
    p.out_type[k] = *to_rtl_type(pass.out_type[k]);
  const bool second_output = functional::writes_out1(pass) && out1 != nullptr;

  for (size_t at = 0; at < pass.elements; at += kMaxChunk) {
    const size_t n = std::min(kMaxChunk, pass.elements - at);
    // A 16-bit stream goes in as its 16-bit patterns: the PPU's load widens them.
    auto words = [&](const float* v, isa::DType type) {
      std::vector<uint32_t> w;
      if (v == nullptr) return w;
      w.resize(n);
      for (size_t i = 0; i < n; ++i)
        w[i] = stream_word(type, v[at + i]);
      return w;
    };
    const std::vector<uint32_t> w0 = words(in0, pass.in_type[0]), w1 = words(in1, pass.in_type[1]),
                                w2 = words(in2, pass.in_type[2]), w3 = words(in3, pass.in_type[3]);
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
      // The model's result as the store writes it: flushed, rounded to the output's type.
      const uint32_t want0 = stored_word(pass.out_type[0], m0[i]);
      if (r0[i] != want0)
        divergence = "out0[" + std::to_string(at + i) + "]: RTL " + s2::hex32(r0[i]) + ", model " +
                     s2::hex32(want0);
      else if (second_output && r1[i] != stored_word(pass.out_type[1], m1[i]))
        divergence = "out1[" + std::to_string(at + i) + "]: RTL " + s2::hex32(r1[i]) + ", model " +
                     s2::hex32(stored_word(pass.out_type[1], m1[i]));
    }
    if (!divergence.empty()) {
      ++u.divergences;
      if (u.first.empty())
        u.first = log_.context + ": ppu pass " + std::to_string(u.passes) + " (" +
                  s2::rtl::ppu_rtl_op_name(p.op) + ", " + std::to_string(n) + " elements, width " +
                  std::to_string(p.width) + ", latency " + std::to_string(p.latency) +
                  "): " + divergence;
    }
    // The datapath continues with the RTL's results, a 16-bit one widened back (exactly: the
    // caller's write rounds it to the same pattern).
    for (size_t i = 0; i < n; ++i)
      out0[at + i] = widened(pass.out_type[0], r0[i]);
    if (second_output)
      for (size_t i = 0; i < n; ++i)
        out1[at + i] = widened(pass.out_type[1], r1[i]);
  }
}

}  // namespace s2::sim::rtl
