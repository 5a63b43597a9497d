#pragma once
// The PPU epilogue of the ops that stream their result through it on the way to DRAM, in the
// ISA's order (isa/encoding/isa.def): y = act(pe + bias + residual) (with keep_pre, the
// activation's input also written as the output `pre`), then gate (y kept where
// gate > 0, zeroed elsewhere; or, with `gate_act`, another activation's backward). Each step is
// rounded to fp32 on its own and uses the lane operations of the separate ops
// (isa/numerics/lane_ops.h: add, relu, relu_bwd, as ops/eltwise.cpp does), so a fused op gives bit
// for bit what the unfused sequence gives — the contract passes/fusion.h relies on.
//
// Shared by the op families that carry an epilogue: ops/conv.cpp, ops/gemm.cpp and
// ops/batch_norm.cpp. The bias stays in each kernel, since where it joins the accumulation
// is part of that kernel's documented order.

#include <cstddef>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/encoding/isa_table.h"
#include "isa/numerics/epilogue.h"

namespace s2::ir::epilogue {

using isa::Activation;

// The attribute `act`, spelled as the ISA's Activation names ("none", "relu", "sigmoid", ...).
inline AttrSpec act_attr() {
  return {"act", AttrKind::String, AttrValue(std::string("none"))};
}

// The ISA's activation names for messages: "none", "relu", ... or "gelu_tanh".
inline std::string act_names_text() {
  const std::vector<isa::EnumValue>& values = isa::enum_values(isa::EnumSet::Activation);
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += i + 1 == values.size() ? " or " : ", ";
    text += "\"" + std::string(values[i].name) + "\"";
  }
  return text;
}

// The activation named by `name`, or false when the ISA has none of that name.
inline bool find_act(const std::string& name, Activation* act) {
  for (const isa::EnumValue& v : isa::enum_values(isa::EnumSet::Activation))
    if (v.name == name) {
      *act = static_cast<Activation>(v.value);
      return true;
    }
  return false;
}

// Shape inference: the activation attribute `key` ("act" may be "none", "gate_act" may not),
// failing with the op's name on any other value.
inline Activation named_act(const InferContext& ctx, const std::string& key, bool none_ok) {
  Activation act = Activation::None;
  const std::string& name = ctx.attrs().s(key);
  if (find_act(name, &act) && (none_ok || act != Activation::None)) return act;
  ctx.fail("attribute '" + key + "' must " +
           (none_ok ? "be " + act_names_text()
                    : "name an activation other than \"none\" (" + act_names_text() + ")") +
           ", not \"" + name + "\"");
  return act;
}

// Kernels: the activation attribute `key` shape inference has accepted.
inline Activation named_act(const Op& op, const std::string& key) {
  Activation act = Activation::None;
  S2_CHECK(find_act(op.attrs.s(key), &act),
           "op '" + op.name + "': unknown " + key + " \"" + op.attrs.s(key) + "\"");
  return act;
}

inline Activation act_of(const InferContext& ctx) {
  return named_act(ctx, "act", true);
}
inline Activation act_of(const Op& op) {
  return named_act(op, "act");
}

// The attribute `gate_act` of the ops with a gate: the activation whose backward the gate
// stage computes, the gate operand holding its forward output (relu, relu6, sigmoid) or input
// (isa/numerics/activation.h). "relu" by default: the mask where gate > 0.
inline AttrSpec gate_act_attr() {
  return {"gate_act", AttrKind::String, AttrValue(std::string("relu"))};
}

inline Activation gate_act_of(const InferContext& ctx) {
  return named_act(ctx, "gate_act", false);
}
inline Activation gate_act_of(const Op& op) {
  return named_act(op, "gate_act");
}

// The attribute `keep_pre` of the ops with an activation stage (conv2d, gemm, batch_norm):
// 1 also writes the value the activation reads (after bias and residual) as the optional
// output `pre`, rounded to its type, and the activation then reads that rounded value, as a
// separate activation op would read it from DRAM (the ISA's pre operand). Fusion sets it when
// a training step's activation backward reads the activation's input (silu, gelu, ...).
inline AttrSpec keep_pre_attr() {
  return {"keep_pre", AttrKind::Int, AttrValue(int64_t{0})};
}

// Shape inference: the output `pre`, y's twin when keep_pre is 1, absent when it is 0.
inline OutputSpec pre_output(const InferContext& ctx, const OutputSpec& y, Activation act) {
  const int64_t keep = ctx.attrs().i("keep_pre");
  if (keep != 0 && keep != 1)
    ctx.fail("attribute 'keep_pre' must be 0 or 1, not " + std::to_string(keep));
  if (keep == 1 && act == Activation::None)
    ctx.fail("keep_pre=1 needs an act other than \"none\": without one, pre would be y");
  OutputSpec pre = y;
  pre.absent = keep == 0;
  return pre;
}

// Kernels: the output `pre` when the op writes it (null otherwise).
inline float* pre_f32(const KernelOutput& out) {
  return out.present() ? out.f32 : nullptr;
}

// Shape inference: an epilogue operand (input i, when present) is a float tensor of the
// output's shape (read as f32, like every epilogue operand).
inline void expect_operand(const InferContext& ctx, size_t i, const Shape& output) {
  if (!ctx.has_input(i)) return;
  ctx.expect_float(i);
  ctx.expect_shape(i, output);
}

// y = act(y + residual), then the gate (gate_act's backward), over n elements; residual and
// gate may be null (isa/numerics/epilogue.h, shared with the simulator).
// With pre, y + residual is first stored there rounded to pre_type (keep_pre).
inline void apply(float* y, size_t n, const float* residual, Activation act, const float* gate,
                  Activation gate_act = Activation::Relu, isa::DType y_type = isa::DType::F32,
                  float* pre = nullptr, isa::DType pre_type = isa::DType::F32) {
  numerics::apply_epilogue(y, n, residual, act, gate, gate_act, y_type, pre, pre_type);
}

inline const float* optional_f32(const KernelInput& in) {
  return in.present() ? in.f32 : nullptr;
}

// Backward rules: autodiff runs before fusion, so an op whose epilogue applies an activation
// or a gate is never differentiated; asking for it is an error rather than a silent
// gradient of the pre-activation. `what` names the stage, e.g. "act=relu".
inline void expect_differentiable(const BackwardContext& ctx, bool fused, const std::string& what) {
  if (!fused) return;
  const Op& op = ctx.forward();
  throw UserError("autodiff: op '" + op.name + "' (" + std::string(op_type_name(op.type)) +
                  ") has a fused epilogue (" + what +
                  ") and cannot be differentiated; differentiate the graph before fusion");
}

// The attributes of `attrs` without `act` and `keep_pre`, for the backward ops of a forward
// op (their schemas have no activation).
inline Attrs without_act(const Attrs& attrs) {
  Attrs out;
  for (const auto& [key, value] : attrs.values())
    if (key != "act" && key != "keep_pre") out.set(key, value);
  return out;
}

}  // namespace s2::ir::epilogue
