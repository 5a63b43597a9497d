// The activation functions other than relu (which keeps its own op and mask): one op,
// `activation`, whose attribute `act` names the function (relu6, sigmoid, silu, hardswish,
// hardsigmoid, gelu, gelu_tanh: the ISA's Activation names), and its backward,
// `activation_bwd`. Both run on the PPU as eltwise act / act_bwd; the forward also fuses into
// the epilogue of the op producing its input (passes/fusion.h) when the backward reads the
// output rather than the input (numerics::reads_output: relu6, sigmoid), since only then is
// that input not needed later. Element by element, so no accumulation order to document; the
// arithmetic is isa/numerics/activation.h's.

#include "isa/numerics/activation.h"

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/epilogue.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

using isa::Activation;

AttrSpec act_spec() {
  return {"act", AttrKind::String, AttrValue(std::string("sigmoid"))};
}

// The op's activation; relu and none are refused (relu is the relu op, none is no op).
Activation checked_act(const InferContext& ctx) {
  const Activation act = epilogue::act_of(ctx);
  if (act == Activation::None || act == Activation::Relu)
    ctx.fail("attribute 'act' = \"" + ctx.attrs().s("act") + "\" is not an activation op (" +
             (act == Activation::Relu ? "use the relu op" : "none computes nothing") + ")");
  return act;
}

std::vector<OutputSpec> infer_activation(const InferContext& ctx) {
  checked_act(ctx);
  ctx.expect_float(0);
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape = ctx.shape(0);
  return {y};
}

std::vector<OutputSpec> infer_activation_bwd(const InferContext& ctx) {
  checked_act(ctx);
  for (size_t i = 0; i < 2; ++i)
    ctx.expect_float(i);
  ctx.expect_shape(1, ctx.shape(0));
  OutputSpec dx;
  dx.dtype = ctx.result_dtype();
  dx.shape = ctx.shape(0);
  return {dx};
}

void activation_kernel(KernelContext& k) {
  numerics::act_fwd(epilogue::act_of(k.op), k.in[0].f32, k.out[0].f32,
                    static_cast<size_t>(k.out[0].numel()));
}

void activation_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  const Activation act = epilogue::act_of(b.forward());
  const TensorId v = numerics::reads_output(act) ? b.output(0) : b.input(0);
  Attrs attrs{{"act", b.attrs().s("act")}};
  b.add_grad(0, b.emit1(OpType::ActivationBwd, "bwd", b.grad_category(0), {dy, v}, attrs));
}

void activation_bwd_kernel(KernelContext& k) {
  const Activation act = epilogue::act_of(k.op);
  const float* dy = k.in[0].f32;
  const float* v = k.in[1].f32;
  float* dx = k.out[0].f32;
  const auto n = static_cast<size_t>(k.out[0].numel());
  for (size_t i = 0; i < n; ++i)
    dx[i] = numerics::act_bwd(act, dy[i], v[i]);
}

template <isa::EltwiseOp kOp>
void encode_act(const ir::Op& op, Instruction& inst) {
  lower::encode_eltwise<kOp>(op, inst);
  FieldWriter(op, inst).enumerated(Field::Act, "act");
}

void decode_act(const Instruction& inst, ir::Attrs& a) {
  a.set("act", field_enum_name(inst, Field::Act));
}

}  // namespace

void register_activation_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::Activation,
                  FusionClass::Ppu,
                  {{"x"}},
                  {"y"},
                  {act_spec()},
                  infer_activation,
                  activation_backward,
                  activation_kernel,
                  "y = act(x) for act relu6, sigmoid, silu, hardswish, hardsigmoid, gelu (erf "
                  "form) or gelu_tanh, computed as isa/numerics/activation.h defines (PyTorch's "
                  "operation order). The backward (activation_bwd) reads y for relu6 and "
                  "sigmoid, x for the others."},
         {OpType::Activation,
          Opcode::Eltwise,
          {{"x", Slot::A}},
          {{"y", Slot::Y}},
          false,
          encode_act<isa::EltwiseOp::Act>,
          decode_act,
          lower::is_eltwise<isa::EltwiseOp::Act>});
  add_op(r,
         OpSchema{OpType::ActivationBwd,
                  FusionClass::Ppu,
                  {{"dy"}, {"v"}},
                  {"dx"},
                  {act_spec()},
                  infer_activation_bwd,
                  nullptr,
                  activation_bwd_kernel,
                  "dx = dy * act'(x), where v is the forward's output y (relu6, sigmoid) or its "
                  "input x (the others). No backward rule."},
         {OpType::ActivationBwd,
          Opcode::Eltwise,
          {{"dy", Slot::A}, {"v", Slot::B}},
          {{"dx", Slot::Y}},
          false,
          encode_act<isa::EltwiseOp::ActBwd>,
          decode_act,
          lower::is_eltwise<isa::EltwiseOp::ActBwd>});
}

}  // namespace s2::ir
