// Batch normalisation in training mode (PyTorch semantics) and its backward, on the PPU.
//
// x is [N,C,H,W] or [N,C]; statistics are per channel c over the N*H*W values of that
// channel. The normalisation uses the biased batch variance; the running variance is updated
// with the unbiased one: running = (1 - momentum) * running + momentum * batch.
//
// The arithmetic (reductions and normalisation in double, rounded once to fp32; the order
// of every sum) is isa/numerics/batch_norm.h, shared with the simulator's functional model.
//
// Epilogues, as the ISA's bn_fwd and bn_bwd have them (ops/epilogue.h): batch_norm's `act`
// (any activation of the ISA, "none" by default) is applied to the fp32 y, and with keep_pre
// its input is also written as `pre`; batch_norm_bwd's optional `gate` (after the positional
// inputs) first sends dy through the gate stage — `gate_act`'s backward, relu's mask (dy kept
// where gate > 0, like relu_bwd) by default — rounded to dy's type as the separate
// activation_bwd stores it, and everything above then reads that gated dy. The fusion pass
// fills them in.

#include "isa/numerics/batch_norm.h"

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/epilogue.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {
namespace {

// Checks x (input `xi`, rank 2 or 4, a float type) and returns its channel count.
int64_t check_activation(const InferContext& ctx, size_t xi) {
  ctx.expect_float(xi);
  const Shape& x = ctx.shape(xi);
  if (x.size() != 2 && x.size() != 4)
    ctx.fail(ctx.describe(xi) + " must have rank 2 ([N,C]) or 4 ([N,C,H,W])");
  return x[1];
}

void check_per_channel(const InferContext& ctx, size_t i, int64_t channels) {
  ctx.expect_dtype(i, DType::F32);
  ctx.expect_shape(i, {channels});
}

using numerics::BnGeometry;

// x as [N, C, S] with S = H*W (1 for a 2-D input).
BnGeometry geometry(const Shape& x) {
  BnGeometry g;
  g.n = static_cast<size_t>(x[0]);
  g.c = static_cast<size_t>(x[1]);
  g.s = x.size() == 4 ? static_cast<size_t>(x[2] * x[3]) : 1;
  return g;
}

// ---- batch_norm ----

std::vector<OutputSpec> infer_batch_norm(const InferContext& ctx) {
  const int64_t c = check_activation(ctx, 0);
  for (size_t i = 1; i <= 4; ++i)
    check_per_channel(ctx, i, c);
  const BnGeometry g = geometry(ctx.shape(0));
  if (g.count() <= 1)
    ctx.fail(ctx.describe(0) + " has " + std::to_string(g.count()) +
             " value per channel; training-mode batch norm needs more than one");
  OutputSpec y, stat;  // the statistics stay f32
  y.dtype = ctx.result_dtype();
  y.shape = ctx.shape(0);
  stat.shape = {c};
  std::vector<OutputSpec> out{y, stat, stat};
  for (size_t i : {size_t{3}, size_t{4}})  // running statistics, updated in place
    out.push_back(ctx.in_place(i));
  out.push_back(epilogue::pre_output(ctx, y, epilogue::act_of(ctx)));
  return out;
}

void batch_norm_kernel(KernelContext& k) {
  numerics::BnForwardArgs a;
  a.x = k.in[0].f32;
  a.gamma = k.in[1].f32;
  a.beta = k.in[2].f32;
  a.running_mean_in = k.in[3].f32;
  a.running_var_in = k.in[4].f32;
  // eps and momentum travel to the hardware as f32 instruction fields: round them the same
  // way here so the interpreter and the executable agree bit for bit.
  a.eps = static_cast<float>(k.op.attrs.f("eps"));
  a.momentum = static_cast<float>(k.op.attrs.f("momentum"));
  a.y = k.out[0].f32;
  a.saved_mean = k.out[1].f32;
  a.saved_invstd = k.out[2].f32;
  a.running_mean_out = k.out[3].f32;  // same memory as running_mean
  a.running_var_out = k.out[4].f32;   // same memory as running_var
  numerics::batch_norm_forward(geometry(k.in[0].shape), a);
  epilogue::apply(a.y, static_cast<size_t>(k.out[0].numel()), nullptr, epilogue::act_of(k.op),
                  nullptr, isa::Activation::Relu, k.out[0].dtype, epilogue::pre_f32(k.out[5]),
                  k.out[5].dtype);
}

// One batch_norm_bwd op computes all three gradients; the outputs not needed are left to
// dead-code elimination. Gradients flowing into the statistics outputs are ignored: they are
// not differentiable results of the step.
void batch_norm_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !(b.needs_grad(0) || b.needs_grad(1) || b.needs_grad(2))) return;
  const std::string& act = b.attrs().s("act");
  epilogue::expect_differentiable(b, act != "none", "act=" + act);
  const std::vector<TensorId> grads =
      b.emit(OpType::BatchNormBwd, "bwd", OpCategory::ActivationGrad,
             {dy, b.input(0), b.input(1), b.output(1), b.output(2)});
  for (size_t i = 0; i < 3; ++i)
    if (b.needs_grad(i)) b.add_grad(i, grads[i]);
}

// ---- batch_norm_bwd ----

std::vector<OutputSpec> infer_batch_norm_bwd(const InferContext& ctx) {
  const int64_t c = check_activation(ctx, 1);
  ctx.expect_float(0);
  ctx.expect_shape(0, ctx.shape(1));
  for (size_t i = 2; i <= 4; ++i)
    check_per_channel(ctx, i, c);
  epilogue::expect_operand(ctx, 5, ctx.shape(1));
  if (epilogue::gate_act_of(ctx) != isa::Activation::Relu && !ctx.has_input(5))
    ctx.fail("gate_act=" + ctx.attrs().s("gate_act") + " needs a gate input");
  OutputSpec dx, stat;  // dgamma and dbeta stay f32
  dx.dtype = ctx.result_dtype();
  dx.shape = ctx.shape(1);
  stat.shape = {c};
  return {dx, stat, stat};
}

void batch_norm_bwd_kernel(KernelContext& k) {
  const float* dy = k.in[0].f32;
  std::vector<float> masked;  // dy after the gate, when there is one
  if (k.in[5].present()) {
    const isa::DType dy_type = k.in[0].dtype;
    masked.assign(dy, dy + k.in[0].numel());
    epilogue::apply(masked.data(), masked.size(), nullptr, isa::Activation::None, k.in[5].f32,
                    epilogue::gate_act_of(k.op), dy_type);
    for (float& v : masked)
      v = numerics::round_to(dy_type, v);
    dy = masked.data();
  }
  numerics::batch_norm_backward(geometry(k.in[1].shape), dy, k.in[1].f32, k.in[2].f32, k.in[3].f32,
                                k.in[4].f32, k.out[0].f32, k.out[1].f32, k.out[2].f32);
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

void encode_bn(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Eps, "eps");
  w.f32(Field::BnMomentum, "momentum");
  w.act();
}

void decode_bn(const Instruction& inst, ir::Attrs& a) {
  a.set("eps", field_f64(inst, Field::Eps));
  a.set("momentum", field_f64(inst, Field::BnMomentum));
  a.set("act", field_enum_name(inst, Field::Act));
  a.set("keep_pre", int64_t{inst.operand(Slot::Pre).has_value()});
}

}  // namespace

void register_batch_norm_ops(OpRegistry& r) {
  const SlotBinding x{"x", Slot::X}, dy{"dy", Slot::Dy}, dx{"dx", Slot::Dx},
      gate{"gate", Slot::Gate};
  add_op(
      r,
      OpSchema{
          OpType::BatchNorm,
          FusionClass::Ppu,
          {{"x"}, {"gamma"}, {"beta"}, {"running_mean"}, {"running_var"}},
          {"y", "saved_mean", "saved_invstd", "running_mean_out", "running_var_out", "pre"},
          {{"eps", AttrKind::Float, AttrValue(1e-5)},
           {"momentum", AttrKind::Float, AttrValue(0.1)},
           epilogue::act_attr(),
           epilogue::keep_pre_attr()},
          infer_batch_norm,
          batch_norm_backward,
          batch_norm_kernel,
          "Training-mode batch norm of x [N,C,H,W] or [N,C] with per-channel gamma, beta [C]: "
          "y = (x - mean) / sqrt(var + eps) * gamma + beta over batch statistics (biased "
          "variance). "
          "Outputs the saved mean and 1/sqrt(var + eps) for the backward, and updates running_mean "
          "and running_var in place (running = (1 - momentum) * running + momentum * batch, with "
          "the "
          "unbiased variance), like PyTorch. Epilogue: y = act(y) with any act of the ISA "
          "(relu, relu6, sigmoid, ...); with keep_pre=1 the act's input is also written as pre "
          "(x's shape). Not differentiable with an act."},
      {OpType::BatchNorm,
       Opcode::BnFwd,
       {x,
        {"gamma", Slot::Gamma},
        {"beta", Slot::Beta},
        {"running_mean", Slot::RunningMean, Slot::Mean},
        {"running_var", Slot::RunningVar, Slot::Mean}},
       {{"y", Slot::Y},
        {"saved_mean", Slot::Mean},
        {"saved_invstd", Slot::InvStd},
        {"running_mean_out", Slot::RunningMean, Slot::Mean},
        {"running_var_out", Slot::RunningVar, Slot::Mean},
        {"pre", Slot::Pre}},
       true,
       encode_bn,
       decode_bn,
       always});
  add_op(r,
         OpSchema{OpType::BatchNormBwd,
                  FusionClass::Ppu,
                  {{"dy"}, {"x"}, {"gamma"}, {"saved_mean"}, {"saved_invstd"}, {"gate", true}},
                  {"dx", "dgamma", "dbeta"},
                  {epilogue::gate_act_attr()},
                  infer_batch_norm_bwd,
                  nullptr,
                  batch_norm_bwd_kernel,
                  "Backward of training-mode batch_norm from its saved statistics: dx, "
                  "dgamma = sum(dy * xhat), dbeta = sum(dy) per channel, where dy first goes "
                  "through the optional gate (of x's shape): kept only where gate > 0, or with "
                  "gate_act another activation's backward, dy * act'(gate), rounded to dy's type. "
                  "No backward rule."},
         {OpType::BatchNormBwd,
          Opcode::BnBwd,
          {dy,
           x,
           {"gamma", Slot::Gamma},
           {"saved_mean", Slot::Mean},
           {"saved_invstd", Slot::InvStd},
           gate},
          {dx, {"dgamma", Slot::DGamma}, {"dbeta", Slot::DBeta}},
          true,
          [](const ir::Op& op, Instruction& inst) {
            FieldWriter(op, inst).enumerated(Field::GateAct, "gate_act");
          },
          [](const Instruction& inst, ir::Attrs& a) {
            a.set("gate_act", field_enum_name(inst, Field::GateAct));
          },
          always});
}

}  // namespace s2::ir
