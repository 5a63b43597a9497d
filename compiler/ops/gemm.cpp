// gemm: y[M,N] = op(a) . op(b) + bias, the fully-connected layer of the PE array (a PyTorch
// Linear is gemm(x, w, bias, trans_b=1)); bmm, the same per batch index without the bias
// (attention). Their backward gradients are gemms (bmms) again, with the transpose flags
// chosen so no operand is ever copied into a transposed layout.
//
// The epilogue of the ISA's gemm (ops/epilogue.h) is optional inputs after bias — residual
// and gate — and an `act` attribute defaulting to "none": y = act(a.b + bias + residual),
// then kept where gate > 0. The fusion pass (passes/fusion.h) fills them in; a gemm built
// without them means what it always meant.

#include "isa/numerics/gemm.h"

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/epilogue.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

bool flag(const InferContext& ctx, const std::string& name) {
  const int64_t v = ctx.attrs().i(name);
  if (v != 0 && v != 1)
    ctx.fail("attribute '" + name + "' must be 0 or 1, not " + std::to_string(v));
  return v == 1;
}

// op(a)'s K (ka) must be op(b)'s (kb).
void expect_inner(const InferContext& ctx, bool ta, bool tb, int64_t ka, int64_t kb) {
  if (ka != kb)
    ctx.fail("inner dimensions differ: " + ctx.describe(0) + " (trans_a=" + (ta ? "1" : "0") +
             ") has K=" + std::to_string(ka) + ", " + ctx.describe(1) +
             " (trans_b=" + (tb ? "1" : "0") + ") has K=" + std::to_string(kb));
}

std::vector<OutputSpec> infer_gemm(const InferContext& ctx) {
  const bool ta = flag(ctx, "trans_a");
  const bool tb = flag(ctx, "trans_b");
  for (size_t i = 0; i < 2; ++i) {
    ctx.expect_float(i);
    ctx.expect_rank(i, 2);
  }
  ctx.expect_same_dtype(0, 1);
  const Shape& a = ctx.shape(0);
  const Shape& b = ctx.shape(1);
  const int64_t m = ta ? a[1] : a[0];
  const int64_t ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0];
  const int64_t n = tb ? b[0] : b[1];
  expect_inner(ctx, ta, tb, ka, kb);
  if (ctx.has_input(2)) {
    ctx.expect_float(2);
    ctx.expect_shape(2, {n});
  }
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape = {m, n};
  epilogue::expect_operand(ctx, 3, y.shape);
  epilogue::expect_operand(ctx, 4, y.shape);
  epilogue::gate_act_of(ctx);
  return {y, epilogue::pre_output(ctx, y, epilogue::act_of(ctx))};
}

// Copies op(src) into `dst` as a dense rows x cols matrix; src is rows x cols, or cols x rows
// when `transposed`.
// The PE array's GEMM and order: isa/numerics/gemm.h (the bias joins after the whole sum),
// then the epilogue (residual, act, gate) element by element.
void gemm_kernel(KernelContext& k) {
  const bool ta = k.op.attrs.i("trans_a") != 0;
  const bool tb = k.op.attrs.i("trans_b") != 0;
  const auto m_size = static_cast<size_t>(k.out[0].shape[0]);
  const auto n_size = static_cast<size_t>(k.out[0].shape[1]);
  const auto k_size = static_cast<size_t>(ta ? k.in[0].shape[0] : k.in[0].shape[1]);
  float* y = k.out[0].f32;
  numerics::gemm(m_size, n_size, k_size, k.in[0].f32, ta, k.in[1].f32, tb,
                 epilogue::optional_f32(k.in[2]), y, k.pe);
  epilogue::apply(y, m_size * n_size, epilogue::optional_f32(k.in[3]), epilogue::act_of(k.op),
                  epilogue::optional_f32(k.in[4]), epilogue::gate_act_of(k.op), k.out[0].dtype,
                  epilogue::pre_f32(k.out[1]), k.out[1].dtype);
}

Attrs trans(int64_t ta, int64_t tb) {
  return Attrs{{"trans_a", ta}, {"trans_b", tb}};
}

// The gradients of a and b of y = op(a) . op(b) (a gemm or, per batch index, a bmm: `type`),
// each one product of the same type over the original operands; see gemm_backward.
void product_grads(BackwardContext& g, OpType type, TensorId dy) {
  const int64_t ta = g.attrs().i("trans_a");
  const int64_t tb = g.attrs().i("trans_b");
  const TensorId a = g.input(0);
  const TensorId b = g.input(1);
  if (g.needs_grad(0)) {
    const TensorId da = ta == 0
                            ? g.emit1(type, "grad_a", g.grad_category(0), {dy, b}, trans(0, 1 - tb))
                            : g.emit1(type, "grad_a", g.grad_category(0), {b, dy}, trans(tb, 1));
    g.add_grad(0, da);
  }
  if (g.needs_grad(1)) {
    const TensorId db = tb == 0
                            ? g.emit1(type, "grad_b", g.grad_category(1), {a, dy}, trans(1 - ta, 0))
                            : g.emit1(type, "grad_b", g.grad_category(1), {dy, a}, trans(1, ta));
    g.add_grad(1, db);
  }
}

// With A = op(a) and B = op(b): dA = dy . B^T and dB = A^T . dy. The gradient of a itself is
// dA, or dA^T = B . dy^T when trans_a; likewise for b. Each is one gemm over the original
// operands with the flags below. The residual is added after the product: its gradient is
// dy itself.
void gemm_backward(BackwardContext& g) {
  const TensorId dy = g.grad_output(0);
  if (!dy.valid()) return;
  const std::string& act = g.attrs().s("act");
  epilogue::expect_differentiable(g, act != "none", "act=" + act);
  epilogue::expect_differentiable(g, g.input(4).valid(), "gate");
  product_grads(g, OpType::Gemm, dy);
  if (g.input(2).valid() && g.needs_grad(2))
    g.add_grad(2, g.emit1(OpType::ReduceSum, "grad_bias", g.grad_category(2), {dy},
                          Attrs{{"axes", std::vector<int64_t>{0}}}));
  if (g.input(3).valid() && g.needs_grad(3)) g.add_grad(3, dy);
}

// ---- bmm: batched matrix multiply (attention's Q.K^T and P.V) ------------------------------

std::vector<OutputSpec> infer_bmm(const InferContext& ctx) {
  const bool ta = flag(ctx, "trans_a");
  const bool tb = flag(ctx, "trans_b");
  for (size_t i = 0; i < 2; ++i)
    ctx.expect_float(i);
  ctx.expect_same_dtype(0, 1);
  const Shape& a = ctx.shape(0);
  const Shape& b = ctx.shape(1);
  if (a.size() < 3 || a.size() > 4 || a.size() != b.size())
    ctx.fail(ctx.describe(0) + " and " + ctx.describe(1) +
             " must have the same rank, 3 or 4: one or two batch dimensions, then a matrix");
  const size_t r = a.size();
  if (!std::equal(a.begin(), a.end() - 2, b.begin()))
    ctx.fail("batch dimensions differ: " + ctx.describe(0) + ", " + ctx.describe(1) +
             " (broadcast a batch dimension with an expand view)");
  const int64_t m = ta ? a[r - 1] : a[r - 2];
  const int64_t ka = ta ? a[r - 2] : a[r - 1];
  const int64_t kb = tb ? b[r - 1] : b[r - 2];
  const int64_t n = tb ? b[r - 2] : b[r - 1];
  expect_inner(ctx, ta, tb, ka, kb);
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape.assign(a.begin(), a.end() - 2);
  y.shape.push_back(m);
  y.shape.push_back(n);
  return {y};
}

// One gemm per batch index, each summed as gemm's (isa/numerics/gemm.h bmm).
void bmm_kernel(KernelContext& k) {
  const bool ta = k.op.attrs.i("trans_a") != 0;
  const bool tb = k.op.attrs.i("trans_b") != 0;
  const Shape& y = k.out[0].shape;
  const size_t r = y.size();
  const auto m_size = static_cast<size_t>(y[r - 2]);
  const auto n_size = static_cast<size_t>(y[r - 1]);
  const auto k_size = static_cast<size_t>(ta ? k.in[0].shape[r - 2] : k.in[0].shape[r - 1]);
  const auto batches = static_cast<size_t>(shape_numel(y)) / (m_size * n_size);
  numerics::bmm(batches, m_size, n_size, k_size, k.in[0].f32, ta, k.in[1].f32, tb, k.out[0].f32,
                k.pe);
}

// gemm's rule per batch index. An operand repeated over a batch dimension is an expand view,
// whose own backward sums the per-batch gradients this produces.
void bmm_backward(BackwardContext& g) {
  const TensorId dy = g.grad_output(0);
  if (dy.valid()) product_grads(g, OpType::Bmm, dy);
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

// bmm: the transpose flags; gemm: those and its epilogue's activation.
void encode_bmm(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.flag(Field::TransA, "trans_a");
  w.flag(Field::TransB, "trans_b");
}

void decode_bmm(const Instruction& inst, ir::Attrs& a) {
  a.set("trans_a", int64_t{inst.u(Field::TransA)});
  a.set("trans_b", int64_t{inst.u(Field::TransB)});
}

void encode_gemm(const ir::Op& op, Instruction& inst) {
  encode_bmm(op, inst);
  FieldWriter w(op, inst);
  w.act();
  if (op.attrs.has("gate_act")) w.enumerated(Field::GateAct, "gate_act");
}

void decode_gemm(const Instruction& inst, ir::Attrs& a) {
  decode_bmm(inst, a);
  a.set("act", field_enum_name(inst, Field::Act));
  a.set("gate_act", field_enum_name(inst, Field::GateAct));
  a.set("keep_pre", int64_t{inst.operand(Slot::Pre).has_value()});
}

}  // namespace

void register_gemm_ops(OpRegistry& r) {
  const SlotBinding w{"w", Slot::W}, bias{"bias", Slot::Bias}, residual{"residual", Slot::Residual},
      gate{"gate", Slot::Gate};
  add_op(r,
         OpSchema{
             OpType::Gemm,
             FusionClass::Pe,
             {{"a"}, {"b"}, {"bias", true}, {"residual", true}, {"gate", true}},
             {"y", "pre"},
             {{"trans_a", AttrKind::Int, AttrValue(int64_t{0})},
              {"trans_b", AttrKind::Int, AttrValue(int64_t{0})},
              epilogue::act_attr(),
              epilogue::gate_act_attr(),
              epilogue::keep_pre_attr()},
             infer_gemm,
             gemm_backward,
             gemm_kernel,
             "y[M,N] = op(a) . op(b) + bias[N], where op(a) = a^T when trans_a (a is [M,K], "
             "or [K,M] when transposed) and op(b) = b^T when trans_b (b is [K,N] or [N,K]). "
             "A PyTorch Linear is gemm(x, w, bias, trans_b=1). Sums over k in increasing "
             "order from 0, bias added last. Epilogue: y = act(y + residual) with act "
             "of the ISA (relu, relu6, sigmoid, ...), then the gate: y kept where gate > 0, or "
             "with gate_act another activation's backward, y * act'(gate) (residual and "
             "gate optional, [M,N]); with keep_pre=1 the act's input is also written as pre [M,N]. "
             "Not differentiable with an act or a gate."},
         {OpType::Gemm,
          Opcode::Gemm,
          {{"a", Slot::A}, {"b", Slot::B}, bias, residual, gate},
          {{"y", Slot::Y}, {"pre", Slot::Pre}},
          false,
          encode_gemm,
          decode_gemm,
          always});
  add_op(r,
         OpSchema{OpType::Bmm,
                  FusionClass::Pe,
                  {{"a"}, {"b"}},
                  {"y"},
                  {{"trans_a", AttrKind::Int, AttrValue(int64_t{0})},
                   {"trans_b", AttrKind::Int, AttrValue(int64_t{0})}},
                  infer_bmm,
                  bmm_backward,
                  bmm_kernel,
                  "Batched matrix multiply: y[B..., M, N] = op(a) . op(b) for every index of the "
                  "one or two leading batch dimensions B..., equal in a and b (an expand view "
                  "repeats an operand), where op transposes the last two dimensions when "
                  "trans_a / trans_b is set. Attention's scores are bmm(q, k, trans_b=1) and its "
                  "output bmm(p, v); head splits and transposes are views, never copies. Each "
                  "batch sums as gemm does; no bias or epilogue."},
         {OpType::Bmm,
          Opcode::Bmm,
          {{"a", Slot::A}, {"b", Slot::B}},
          {{"y", Slot::Y}},
          false,
          encode_bmm,
          decode_bmm,
          always});
}

}  // namespace s2::ir
