#include "rtl_models/ppu/ppu_rtl.h"

#include <cmath>
#include <sstream>

#include "isa/common/errors.h"
#include "rtl_models/ppu/ppu_pass_loop.h"

namespace s2::rtl {

const char* ppu_rtl_op_name(PpuRtlOp op) {
  switch (op) {
    case PpuRtlOp::Add:
      return "add";
    case PpuRtlOp::Sub:
      return "sub";
    case PpuRtlOp::Mul:
      return "mul";
    case PpuRtlOp::Max:
      return "max";
    case PpuRtlOp::Min:
      return "min";
    case PpuRtlOp::Relu:
      return "relu";
    case PpuRtlOp::ReluBwd:
      return "relu_bwd";
    case PpuRtlOp::Axpby:
      return "axpby";
    case PpuRtlOp::ScaleShift:
      return "scale_shift";
    case PpuRtlOp::Sgd:
      return "sgd";
    case PpuRtlOp::Epilogue:
      return "epilogue";
    case PpuRtlOp::Cast:
      return "cast";
  }
  return "unknown";
}

const char* ppu_rtl_type_name(PpuRtlType type) {
  switch (type) {
    case PpuRtlType::F32:
      return "f32";
    case PpuRtlType::Bf16:
      return "bf16";
    case PpuRtlType::F16:
      return "f16";
  }
  return "unknown";
}

std::unique_ptr<RtlPpuStream> RtlPpu::open_stream(const PpuPass& /*pass*/, const uint32_t* /*in0*/,
                                                  const uint32_t* /*in1*/, const uint32_t* /*in2*/,
                                                  const uint32_t* /*in3*/, uint32_t* /*out0*/,
                                                  uint32_t* /*out1*/) {
  throw InternalError("this PPU RTL build has no streamed pass (the plain builds do)");
}

uint32_t ppu_pass_width(uint32_t lanes, double throughput, const std::string& where) {
  const double width = static_cast<double>(lanes) * throughput;
  if (!(width >= 1.0) || width > 4294967295.0 || std::floor(width) != width) {
    std::ostringstream msg;
    msg << where << ": the PPU RTL needs lanes * throughput to be a whole number of elements "
        << "per cycle (>= 1); " << lanes << " lanes * " << throughput << " = " << width;
    throw UserError(msg.str());
  }
  return static_cast<uint32_t>(width);
}

namespace detail {

namespace {

struct OpStreams {
  bool in[4];
  bool out[2];
};

// What each op reads and writes (ppu_rtl.h). Sgd's velocity only with momentum; the epilogue's
// bias/residual/gate only with their stage, and its y twice (out1: stored in its own type).
OpStreams streams_of(const PpuPass& p) {
  const bool velocity = (p.momentum & 0x7F800000u) != 0;  // nonzero after DAZ
  switch (p.op) {
    case PpuRtlOp::Add:
    case PpuRtlOp::Sub:
    case PpuRtlOp::Mul:
    case PpuRtlOp::Max:
    case PpuRtlOp::Min:
    case PpuRtlOp::ReluBwd:
    case PpuRtlOp::Axpby:
      return {{true, true, false, false}, {true, false}};
    case PpuRtlOp::Relu:
    case PpuRtlOp::ScaleShift:
    case PpuRtlOp::Cast:
      return {{true, false, false, false}, {true, false}};
    case PpuRtlOp::Sgd:
      return {{true, true, velocity, false}, {true, velocity}};
    case PpuRtlOp::Epilogue:
      return {{true, p.bias, p.residual, p.gate}, {true, true}};
  }
  throw UserError("ppu RTL: unknown op code " + std::to_string(static_cast<uint32_t>(p.op)));
}

}  // namespace

PassStreams check_pass(const PpuPass& pass, uint32_t lanes, const uint32_t* in0,
                       const uint32_t* in1, const uint32_t* in2, const uint32_t* in3,
                       uint32_t* out0, uint32_t* out1) {
  const OpStreams need = streams_of(pass);
  const std::string where = std::string("ppu RTL ") + ppu_rtl_op_name(pass.op) + " pass: ";
  if (pass.elements < 1 || pass.elements > 0xFFFFFFFFull)
    throw UserError(where + std::to_string(pass.elements) +
                    " elements; the RTL streams 1 .. 2^32-1 elements per pass");
  if (pass.width < 1 || pass.width > lanes)
    throw UserError(where + "width " + std::to_string(pass.width) + " elements per cycle on " +
                    std::to_string(lanes) + " lanes; it must be 1 .. " + std::to_string(lanes));
  if (pass.latency < 1 || pass.latency > kPpuMaxLatency)
    throw UserError(where + "latency " + std::to_string(pass.latency) + "; it must be 1 .. " +
                    std::to_string(kPpuMaxLatency));
  for (const PpuRtlType t : pass.in_type)
    if (static_cast<uint32_t>(t) > 2)
      throw UserError(where + "input type code " + std::to_string(static_cast<uint32_t>(t)) +
                      "; the types are 0 f32, 1 bf16, 2 f16");
  for (const PpuRtlType t : pass.out_type)
    if (static_cast<uint32_t>(t) > 2)
      throw UserError(where + "output type code " + std::to_string(static_cast<uint32_t>(t)) +
                      "; the types are 0 f32, 1 bf16, 2 f16");
  const uint32_t* const in[4] = {in0, in1, in2, in3};
  uint32_t* const out[2] = {out0, out1};
  PassStreams s;
  for (size_t k = 0; k < 4; ++k) {
    if (need.in[k] && in[k] == nullptr)
      throw UserError(where + "input stream in" + std::to_string(k) + " is required but null");
    s.in[k] = need.in[k] ? in[k] : nullptr;
  }
  for (size_t k = 0; k < 2; ++k) {
    // out1 is optional (Sgd's velocity, even with momentum; the epilogue's f32 y): the caller
    // may not want it.
    const bool required = need.out[k] && k == 0;
    if (required && out[k] == nullptr)
      throw UserError(where + "output stream out" + std::to_string(k) + " is required but null");
    s.out[k] = need.out[k] ? out[k] : nullptr;
  }
  return s;
}

}  // namespace detail

}  // namespace s2::rtl
