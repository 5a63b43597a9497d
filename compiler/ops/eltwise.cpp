// Element-wise ops on f32 tensors of one shape (no broadcasting): relu and its backward mask,
// add, mul and scale. All run on the PPU. Each output element depends on the same element of
// the inputs only, so there is no accumulation order to document.

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/lane_ops.h"

namespace s2::ir {
namespace {

// Every input of a float type and of the shape of input 0; the single output has that
// shape too.
std::vector<OutputSpec> infer_same_shape(const InferContext& ctx) {
  for (size_t i = 0; i < ctx.op().inputs.size(); ++i)
    ctx.expect_float(i);
  for (size_t i = 1; i < ctx.op().inputs.size(); ++i)
    if (ctx.shape(i) != ctx.shape(0))
      ctx.fail(ctx.describe(i) + " does not match " + ctx.describe(0) +
               " (element-wise ops do not broadcast)");
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape = ctx.shape(0);
  return {y};
}

size_t count(const KernelOutput& out) {
  return static_cast<size_t>(out.numel());
}

// ---- relu ----

void relu_kernel(KernelContext& k) {
  const float* x = k.in[0].f32;
  float* y = k.out[0].f32;
  const size_t n = count(k.out[0]);
  for (size_t i = 0; i < n; ++i)
    y[i] = numerics::relu(x[i]);
}

void relu_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  b.add_grad(0, b.emit1(OpType::ReluBwd, "bwd", b.grad_category(0), {dy, b.output(0)}));
}

void relu_bwd_kernel(KernelContext& k) {
  const float* dy = k.in[0].f32;
  const float* y = k.in[1].f32;
  float* dx = k.out[0].f32;
  const size_t n = count(k.out[0]);
  for (size_t i = 0; i < n; ++i)
    dx[i] = numerics::relu_bwd(dy[i], y[i]);
}

// ---- add ----

void add_kernel(KernelContext& k) {
  const float* a = k.in[0].f32;
  const float* b = k.in[1].f32;
  float* y = k.out[0].f32;
  const size_t n = count(k.out[0]);
  for (size_t i = 0; i < n; ++i)
    y[i] = numerics::add(a[i], b[i]);
}

void add_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid()) return;
  for (size_t i = 0; i < 2; ++i)
    if (b.needs_grad(i)) b.add_grad(i, dy);
}

// ---- mul ----

void mul_kernel(KernelContext& k) {
  const float* a = k.in[0].f32;
  const float* b = k.in[1].f32;
  float* y = k.out[0].f32;
  const size_t n = count(k.out[0]);
  for (size_t i = 0; i < n; ++i)
    y[i] = numerics::mul(a[i], b[i]);
}

void mul_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid()) return;
  if (b.needs_grad(0))
    b.add_grad(0, b.emit1(OpType::Mul, "grad_a", b.grad_category(0), {dy, b.input(1)}));
  if (b.needs_grad(1))
    b.add_grad(1, b.emit1(OpType::Mul, "grad_b", b.grad_category(1), {dy, b.input(0)}));
}

// ---- scale ----

void scale_kernel(KernelContext& k) {
  const float alpha = numerics::load(static_cast<float>(k.op.attrs.f("alpha")));
  const float beta = numerics::load(static_cast<float>(k.op.attrs.f("beta")));
  const float* x = k.in[0].f32;
  float* y = k.out[0].f32;
  const size_t n = count(k.out[0]);
  // Rounded after the multiply and after the add: no fused multiply-add.
  for (size_t i = 0; i < n; ++i)
    y[i] = numerics::scale_shift(x[i], alpha, beta);
}

void scale_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  Attrs attrs{{"alpha", b.attrs().f("alpha")}, {"beta", 0.0}};
  b.add_grad(0, b.emit1(OpType::Scale, "grad", b.grad_category(0), {dy}, attrs));
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

void encode_scale(const ir::Op& op, Instruction& inst) {
  lower::encode_eltwise<isa::EltwiseOp::Scale>(op, inst);
  FieldWriter w(op, inst);
  w.f32(Field::ScaleA, "alpha");
  w.f32(Field::ScaleB, "beta");
}

void decode_scale(const Instruction& inst, ir::Attrs& a) {
  a.set("alpha", field_f64(inst, Field::ScaleA));
  a.set("beta", field_f64(inst, Field::ScaleB));
}

}  // namespace

void register_eltwise_ops(OpRegistry& r) {
  const SlotBinding a{"a", Slot::A}, b{"b", Slot::B}, y{"y", Slot::Y};
  add_op(r,
         OpSchema{OpType::Relu,
                  FusionClass::Ppu,
                  {{"x"}},
                  {"y"},
                  {},
                  infer_same_shape,
                  relu_backward,
                  relu_kernel,
                  "y = max(x, 0). The backward rule reads the output y (relu_bwd), like "
                  "PyTorch's threshold_backward."},
         {OpType::Relu,
          Opcode::Eltwise,
          {{"x", Slot::A}},
          {y},
          false,
          lower::encode_eltwise<isa::EltwiseOp::Relu>,
          decode_nothing,
          lower::is_eltwise<isa::EltwiseOp::Relu>});
  add_op(r,
         OpSchema{OpType::ReluBwd,
                  FusionClass::Ppu,
                  {{"dy"}, {"y"}},
                  {"dx"},
                  {},
                  infer_same_shape,
                  nullptr,
                  relu_bwd_kernel,
                  "dx = y > 0 ? dy : 0, where y is relu's output. No backward rule."},
         {OpType::ReluBwd,
          Opcode::Eltwise,
          {{"dy", Slot::A}, {"y", Slot::B}},
          {{"dx", Slot::Y}},
          false,
          lower::encode_eltwise<isa::EltwiseOp::ReluBwd>,
          decode_nothing,
          lower::is_eltwise<isa::EltwiseOp::ReluBwd>});
  add_op(r,
         OpSchema{OpType::Add,
                  FusionClass::Ppu,
                  {{"a"}, {"b"}},
                  {"y"},
                  {},
                  infer_same_shape,
                  add_backward,
                  add_kernel,
                  "y = a + b, both of one shape (no broadcasting). The gradient passes to both "
                  "inputs unchanged."},
         {OpType::Add,
          Opcode::Eltwise,
          {a, b},
          {y},
          false,
          lower::encode_eltwise<isa::EltwiseOp::Add>,
          decode_nothing,
          lower::is_eltwise<isa::EltwiseOp::Add>});
  add_op(r,
         OpSchema{OpType::Mul,
                  FusionClass::Ppu,
                  {{"a"}, {"b"}},
                  {"y"},
                  {},
                  infer_same_shape,
                  mul_backward,
                  mul_kernel,
                  "y = a * b, both of one shape (no broadcasting). da = dy * b, db = dy * a."},
         {OpType::Mul,
          Opcode::Eltwise,
          {a, b},
          {y},
          false,
          lower::encode_eltwise<isa::EltwiseOp::Mul>,
          decode_nothing,
          lower::is_eltwise<isa::EltwiseOp::Mul>});
  add_op(r,
         OpSchema{OpType::Scale,
                  FusionClass::Ppu,
                  {{"x"}},
                  {"y"},
                  {{"alpha", AttrKind::Float, AttrValue(1.0)},
                   {"beta", AttrKind::Float, AttrValue(0.0)}},
                  infer_same_shape,
                  scale_backward,
                  scale_kernel,
                  "y = alpha * x + beta (alpha and beta rounded to f32; multiply, then add). "
                  "dx = alpha * dy."},
         {OpType::Scale,
          Opcode::Eltwise,
          {{"x", Slot::A}},
          {y},
          false,
          encode_scale,
          decode_scale,
          lower::is_eltwise<isa::EltwiseOp::Scale>});
}

}  // namespace s2::ir
