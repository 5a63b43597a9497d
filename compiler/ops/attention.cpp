// Fused attention: y = softmax(scale * q k^T + mask) v in one PE instruction (attn_fwd), and its
// backward (attn_bwd), FlashAttention-style: the [Tq, Tk] scores and probabilities exist only
// a block at a time on chip, so neither is written to DRAM nor saved for the backward; the
// forward saves each row's log-sum-exp (lse) instead and the backward recomputes the
// probabilities from it. The zoo and the ONNX importer never build these ops: the
// fuse-attention pass (passes/attention_fusion.h) replaces bmm -> softmax -> bmm and its
// backward with them when `s2c compile --fuse-attention` asks, choosing block_q x block_k
// for the target's SRAM. The arithmetic is isa/numerics/attention.h.

#include "isa/numerics/attention.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/epilogue.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

// Inputs q, k, v (0-2) and the optional mask (3): their shapes agree as attention needs, and
// q, k and v are of one float type, the PE array's multiply mode. Returns y's shape.
Shape check_qkv(const InferContext& ctx) {
  ctx.expect_float(0);
  ctx.expect_same_dtype(0, 1);
  ctx.expect_same_dtype(0, 2);
  const Shape& q = ctx.shape(0);
  const Shape& k = ctx.shape(1);
  const Shape& v = ctx.shape(2);
  if (q.size() < 3 || q.size() > 4 || k.size() != q.size() || v.size() != q.size())
    ctx.fail(ctx.describe(0) + ", " + ctx.describe(1) + " and " + ctx.describe(2) +
             " must have the same rank, 3 or 4: one or two batch dimensions, then rows and a "
             "head dimension");
  const size_t r = q.size();
  for (size_t i = 0; i + 2 < r; ++i)
    if (k[i] != q[i] || v[i] != q[i])
      ctx.fail("batch dimensions differ: " + ctx.describe(0) + ", " + ctx.describe(1) + ", " +
               ctx.describe(2));
  if (k[r - 1] != q[r - 1])
    ctx.fail(ctx.describe(1) + " must have the head dimension of " + ctx.describe(0));
  if (v[r - 2] != k[r - 2]) ctx.fail(ctx.describe(2) + " must have the rows of " + ctx.describe(1));
  const int64_t causal = ctx.attrs().i("causal");
  if (causal != 0 && causal != 1)
    ctx.fail("attribute 'causal' must be 0 or 1, not " + std::to_string(causal));
  for (const char* block : {"block_q", "block_k"})
    if (ctx.attrs().i(block) < 1)
      ctx.fail("attribute '" + std::string(block) + "' must be at least 1, not " +
               std::to_string(ctx.attrs().i(block)));
  if (!std::isfinite(ctx.attrs().f("scale")))
    ctx.fail("scale=" + std::to_string(ctx.attrs().f("scale")) + " must be finite");
  if (ctx.has_input(3)) {
    ctx.expect_dtype(3, DType::F32);
    Shape scores(q.begin(), q.end() - 1);
    scores.push_back(k[r - 2]);
    ctx.expect_shape(3, scores);
  }
  Shape y(q.begin(), q.end() - 1);
  y.push_back(v[r - 1]);
  return y;
}

std::vector<OutputSpec> infer_attention(const InferContext& ctx) {
  OutputSpec y, lse;
  y.shape = check_qkv(ctx);
  y.dtype = ctx.result_dtype();  // lse stays f32, as the ISA keeps it
  lse.shape.assign(y.shape.begin(), y.shape.end() - 1);
  return {y, lse};
}

numerics::AttentionGeometry geometry(const Op& op, DType dtype, const Shape& q, const Shape& k,
                                     const Shape& v) {
  const size_t r = q.size();
  numerics::AttentionGeometry g;
  g.tq = static_cast<size_t>(q[r - 2]);
  g.d = static_cast<size_t>(q[r - 1]);
  g.tk = static_cast<size_t>(k[r - 2]);
  g.dv = static_cast<size_t>(v[r - 1]);
  g.batches = static_cast<size_t>(shape_numel(q)) / (g.tq * g.d);
  g.block_q = static_cast<size_t>(op.attrs.i("block_q"));
  g.block_k = static_cast<size_t>(op.attrs.i("block_k"));
  g.scale = static_cast<float>(op.attrs.f("scale"));  // the f32 field the hardware holds
  g.causal = op.attrs.i("causal") != 0;
  g.mode = dtype;
  return g;
}

void attention_kernel(KernelContext& k) {
  numerics::attention_forward(
      geometry(k.op, k.in[0].dtype, k.in[0].shape, k.in[1].shape, k.in[2].shape), k.in[0].f32,
      k.in[1].f32, k.in[2].f32, epilogue::optional_f32(k.in[3]), k.out[0].f32, k.out[1].f32, k.pe);
}

// One attention_bwd for dq, dk and dv together (it computes all three from the same
// recomputed blocks). The mask has no gradient here: the fusion pass leaves attention with a
// trainable mask unfused.
void attention_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid()) return;
  if (b.input(3).valid() && b.needs_grad(3))
    throw UserError("op '" + b.forward().name +
                    "' (attention): the mask needs a gradient, which the fused attention does "
                    "not compute; compile without --fuse-attention");
  std::vector<TensorId> inputs{b.input(0),  b.input(1), b.input(2), b.input(3),
                               b.output(0), dy,         b.output(1)};
  const std::vector<TensorId> grads =
      b.emit(OpType::AttentionBwd, "bwd", b.grad_category(0), inputs, b.attrs());
  for (size_t i = 0; i < 3; ++i)
    if (b.needs_grad(i)) b.add_grad(i, grads[i]);
}

std::vector<OutputSpec> infer_attention_bwd(const InferContext& ctx) {
  const Shape y = check_qkv(ctx);
  ctx.expect_float(4);
  ctx.expect_shape(4, y);
  ctx.expect_same_dtype(0, 5);  // dy is multiplied too
  ctx.expect_shape(5, y);
  ctx.expect_dtype(6, DType::F32);
  ctx.expect_shape(6, Shape(y.begin(), y.end() - 1));
  std::vector<OutputSpec> grads(4);
  for (size_t i = 0; i < 3; ++i) {
    grads[i].shape = ctx.shape(i);
    grads[i].dtype = ctx.result_dtype();
  }
  // dq_acc: the f32 running dq a 16-bit dq needs between key blocks (the ISA's dq_acc).
  grads[3].shape = ctx.shape(0);
  grads[3].absent = grads[0].dtype == DType::F32;
  return grads;
}

void attention_bwd_kernel(KernelContext& k) {
  numerics::attention_backward(
      geometry(k.op, k.in[0].dtype, k.in[0].shape, k.in[1].shape, k.in[2].shape), k.in[0].f32,
      k.in[1].f32, k.in[2].f32, epilogue::optional_f32(k.in[3]), k.in[4].f32, k.in[5].f32,
      k.in[6].f32, k.out[0].f32, k.out[1].f32, k.out[2].f32, k.pe);
  // dq before run_kernel rounds it: the f32 sums dq_acc holds after the last key block.
  if (k.out[3].present()) std::copy(k.out[0].f32, k.out[0].f32 + k.out[0].numel(), k.out[3].f32);
}

std::vector<AttrSpec> attention_attrs() {
  return {{"scale", AttrKind::Float, AttrValue(1.0)},
          {"causal", AttrKind::Int, AttrValue(int64_t{0})},
          {"block_q", AttrKind::Int, AttrValue(int64_t{64})},
          {"block_k", AttrKind::Int, AttrValue(int64_t{64})}};
}

void encode_attention(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Scale, "scale");
  w.flag(Field::Causal, "causal");
  w.uint(Field::BlockQ, "block_q", op.attrs.i("block_q"));
  w.uint(Field::BlockK, "block_k", op.attrs.i("block_k"));
}

void decode_attention(const Instruction& inst, ir::Attrs& a) {
  a.set("scale", field_f64(inst, Field::Scale));
  a.set("causal", int64_t{inst.u(Field::Causal)});
  a.set("block_q", int64_t{inst.u(Field::BlockQ)});
  a.set("block_k", int64_t{inst.u(Field::BlockK)});
}

}  // namespace

void register_attention_ops(OpRegistry& r) {
  const SlotBinding q{"q", Slot::Q}, k{"k", Slot::K}, v{"v", Slot::V}, mask{"mask", Slot::Mask};
  add_op(r,
         OpSchema{OpType::Attention,
                  FusionClass::Pe,
                  {{"q"}, {"k"}, {"v"}, {"mask", true}},
                  {"y", "lse"},
                  attention_attrs(),
                  infer_attention,
                  attention_backward,
                  attention_kernel,
                  "Fused attention: y[B..., Tq, dv] = softmax(scale * q . k^T + mask) . v per "
                  "batch index (q [B..., Tq, d], k [B..., Tk, d], v [B..., Tk, dv], one or two "
                  "batch dimensions; mask optional, [B..., Tq, Tk]); causal=1 keeps key j for "
                  "query i only when j <= i. lse [B..., Tq] is each row's "
                  "log-sum-exp, saved for the backward. Tiled block_q x block_k as FlashAttention "
                  "(online softmax): isa/numerics/attention.h. Built by the fuse-attention pass."},
         {OpType::Attention,
          Opcode::AttnFwd,
          {q, k, v, mask},
          {{"y", Slot::Y}, {"lse", Slot::Lse}},
          false,
          encode_attention,
          decode_attention,
          always});
  add_op(r,
         OpSchema{OpType::AttentionBwd,
                  FusionClass::Pe,
                  {{"q"}, {"k"}, {"v"}, {"mask", true}, {"y"}, {"dy"}, {"lse"}},
                  {"dq", "dk", "dv", "dq_acc"},
                  attention_attrs(),
                  infer_attention_bwd,
                  nullptr,
                  attention_bwd_kernel,
                  "Backward of attention from its y and lse: dq, dk, dv given dy, the "
                  "probabilities recomputed block by block (FlashAttention-2's order: key blocks "
                  "outer, query blocks inner): isa/numerics/attention.h. A 16-bit dq sums its "
                  "key blocks in dq_acc (f32), which holds the unrounded dq afterwards; absent "
                  "for f32. No backward rule."},
         {OpType::AttentionBwd,
          Opcode::AttnBwd,
          {q, k, v, mask, {"y", Slot::Y}, {"dy", Slot::Dy}, {"lse", Slot::Lse}},
          {{"dq", Slot::DQ}, {"dk", Slot::DK}, {"dv", Slot::DV}, {"dq_acc", Slot::DqAcc}},
          false,
          encode_attention,
          decode_attention,
          always});
}

}  // namespace s2::ir
