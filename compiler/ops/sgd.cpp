// sgd: the weight update of PyTorch's torch.optim.SGD (dampening 0, no Nesterov), in place on
// the PPU. Per element, in f32 with every operation rounded (no fused multiply-add):
//   g = grad + weight_decay * weight        (when weight_decay != 0)
//   v = momentum * v + g;  g = v            (when momentum != 0)
//   weight = weight - lr * g
// The velocity starts at zero, so the first step stores v = g, PyTorch's first-step buffer.

#include <string>
#include <vector>

#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/lane_ops.h"

namespace s2::ir {
namespace {

OutputSpec in_place(const InferContext& ctx, size_t i) {
  const Tensor& t = ctx.input(i);
  if (!t.contiguous()) ctx.fail(ctx.describe(i) + " is updated in place and must be a dense view");
  OutputSpec o;
  o.shape = t.shape;
  o.alias_input = static_cast<int>(i);
  o.strides = t.strides;
  o.offset = t.offset;
  return o;
}

std::vector<OutputSpec> infer_sgd(const InferContext& ctx) {
  const double lr = ctx.attrs().f("lr");
  const double momentum = ctx.attrs().f("momentum");
  const double weight_decay = ctx.attrs().f("weight_decay");
  // Doubles print exactly through attr_value_text.
  if (!(lr >= 0.0)) ctx.fail("lr " + attr_value_text(AttrValue(lr)) + " must be >= 0");
  if (!(momentum >= 0.0))
    ctx.fail("momentum " + attr_value_text(AttrValue(momentum)) + " must be >= 0");
  if (!(weight_decay >= 0.0))
    ctx.fail("weight_decay " + attr_value_text(AttrValue(weight_decay)) + " must be >= 0");
  ctx.expect_dtype(0, DType::F32);
  ctx.expect_dtype(1, DType::F32);
  ctx.expect_shape(1, ctx.shape(0));
  std::vector<OutputSpec> out{in_place(ctx, 0)};
  if (ctx.has_input(2)) {
    ctx.expect_dtype(2, DType::F32);
    ctx.expect_shape(2, ctx.shape(0));
    out.push_back(in_place(ctx, 2));
  } else {
    if (momentum != 0.0)
      ctx.fail("momentum " + attr_value_text(AttrValue(momentum)) +
               " needs the velocity input (optimizer state of the weight's shape)");
    OutputSpec absent;
    absent.absent = true;
    out.push_back(absent);
  }
  return out;
}

void sgd_kernel(KernelContext& k) {
  numerics::SgdParams p;
  p.lr = numerics::load(static_cast<float>(k.op.attrs.f("lr")));
  p.momentum = numerics::load(static_cast<float>(k.op.attrs.f("momentum")));
  p.weight_decay = numerics::load(static_cast<float>(k.op.attrs.f("weight_decay")));
  const size_t n = static_cast<size_t>(k.in[0].numel());
  const float* grad = k.in[1].f32;
  float* weight = k.out[0].f32;    // the memory of input 0
  float* velocity = k.out[1].f32;  // the memory of input 2, or null
  float unused = 0.0f;
  for (size_t i = 0; i < n; ++i)
    numerics::sgd_step(p, weight[i], grad[i], velocity != nullptr ? &velocity[i] : &unused);
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

void encode_sgd(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Lr, "lr");
  w.f32(Field::Momentum, "momentum");
  w.f32(Field::WeightDecay, "weight_decay");
}

void decode_sgd(const Instruction& inst, ir::Attrs& a) {
  a.set("lr", field_f64(inst, Field::Lr));
  a.set("momentum", field_f64(inst, Field::Momentum));
  a.set("weight_decay", field_f64(inst, Field::WeightDecay));
}

}  // namespace

void register_sgd_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::Sgd,
                  FusionClass::Ppu,
                  {{"weight"}, {"grad"}, {"velocity", true}},
                  {"weight_out", "velocity_out"},
                  {{"lr", AttrKind::Float, std::nullopt},
                   {"momentum", AttrKind::Float, AttrValue(0.0)},
                   {"weight_decay", AttrKind::Float, AttrValue(0.0)}},
                  infer_sgd,
                  nullptr,
                  sgd_kernel,
                  "PyTorch SGD step (dampening 0, no Nesterov), in place: g = grad + weight_decay "
                  "* weight; with momentum, v = momentum * v + g and g = v; weight -= lr * g. "
                  "weight_out and velocity_out alias weight and velocity; velocity (zero at the "
                  "start) is required when momentum != 0 and left unchanged when momentum == 0. "
                  "No backward rule."},
         {OpType::Sgd,
          Opcode::Sgd,
          {{"weight", Slot::Weight}, {"grad", Slot::Grad}, {"velocity", Slot::Velocity}},
          {{"weight_out", Slot::Weight}, {"velocity_out", Slot::Velocity}},
          false,
          encode_sgd,
          decode_sgd,
          always});
}

}  // namespace s2::ir
