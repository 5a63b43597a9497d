// Softmax cross-entropy (PyTorch's nn.CrossEntropyLoss on class indices) and its gradient,
// on the PPU. The loss is where backpropagation starts.
//
// Arithmetic (fp32, no fused multiply-add), per row n of logits x [N,C] with label t:
//   max  = the largest x[n][c]
//   sum  = exp(x[n][c] - max) added from 0.0f for c = 0..C-1
//   loss = log(sum) - (x[n][t] - max)
// The rows' losses are added from 0.0f in order n = 0..N-1, then divided by N for "mean".
// The gradient is (exp(x[n][c] - max) / sum - (c == t)), divided by N for "mean", then
// multiplied by the incoming loss gradient when there is one. A row labelled ignore_index
// (-100 unless set: a language model's padding) adds no loss and gets no gradient, and N
// counts only the other rows (isa/numerics/softmax_ce.h).
//
// A label outside [0, C) that is not ignore_index is a fault of the input batch, found only
// when the numbers are known: the kernel throws s2::UserError naming the op, the sample and
// the label.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/numerics/softmax_ce.h"

namespace s2::ir {
namespace {

void check_logits_labels(const InferContext& ctx) {
  ctx.expect_float(0);
  ctx.expect_rank(0, 2);
  ctx.expect_dtype(1, DType::I32);
  ctx.expect_rank(1, 1);
  if (ctx.shape(1)[0] != ctx.shape(0)[0])
    ctx.fail(ctx.describe(1) + " must have one label per row of " + ctx.describe(0));
  const std::string& reduction = ctx.attrs().s("reduction");
  if (reduction != "mean" && reduction != "sum")
    ctx.fail("attribute 'reduction' must be \"mean\" or \"sum\", not \"" + reduction + "\"");
  const int64_t ignore = ctx.attrs().i("ignore_index");
  if (ignore < INT32_MIN || ignore > INT32_MAX)
    ctx.fail("attribute 'ignore_index' " + std::to_string(ignore) +
             " is outside the int32 range of the labels");
}

std::vector<OutputSpec> infer_softmax_ce(const InferContext& ctx) {
  check_logits_labels(ctx);
  OutputSpec loss;
  loss.shape = {1};
  return {loss};
}

std::vector<OutputSpec> infer_softmax_ce_bwd(const InferContext& ctx) {
  check_logits_labels(ctx);
  if (ctx.has_input(2)) {
    ctx.expect_dtype(2, DType::F32);
    ctx.expect_shape(2, {1});
  }
  const int64_t in_place = ctx.attrs().i("in_place");
  if (in_place != 0 && in_place != 1)
    ctx.fail("attribute 'in_place' must be 0 or 1, not " + std::to_string(in_place));
  OutputSpec dlogits;
  dlogits.dtype = ctx.result_dtype();
  dlogits.shape = ctx.shape(0);
  if (in_place == 1) {
    // Written over the logits (pass in-place): each row is read whole, for its max and sum,
    // before any of it is written, so the overwrite is safe row by row.
    const Tensor& logits = ctx.input(0);
    dlogits.alias_input = 0;
    dlogits.strides = logits.strides;
    dlogits.offset = logits.offset;
  }
  return {dlogits};
}

int32_t ignore_index(const Op& op) {
  return static_cast<int32_t>(op.attrs.i("ignore_index"));
}

// Labels checked against the class count, naming the op.
void check_labels(const KernelContext& k, size_t rows, size_t classes) {
  const int32_t ignore = ignore_index(k.op);
  if (const auto bad = numerics::label_outside(k.in[1].i32, rows, classes, ignore))
    throw UserError("op '" + k.op.name + "' (" + std::string(op_type_name(k.op.type)) +
                    "): label " + std::to_string(k.in[1].i32[*bad]) + " of sample " +
                    std::to_string(*bad) + " is outside the class range [0," +
                    std::to_string(classes) + ") and is not the ignore_index " +
                    std::to_string(ignore));
}

void softmax_ce_kernel(KernelContext& k) {
  const auto rows = static_cast<size_t>(k.in[0].shape[0]);
  const auto classes = static_cast<size_t>(k.in[0].shape[1]);
  check_labels(k, rows, classes);
  k.out[0].f32[0] =
      numerics::softmax_ce_loss(k.in[0].f32, k.in[1].i32, rows, classes,
                                k.op.attrs.s("reduction") == "mean", ignore_index(k.op));
}

void softmax_ce_backward(BackwardContext& b) {
  if (!b.needs_grad(0)) return;
  // No incoming gradient: this is the loss the step minimises, d loss / d loss = 1.
  std::vector<TensorId> inputs{b.input(0), b.input(1)};
  if (b.grad_output(0).valid()) inputs.push_back(b.grad_output(0));
  b.add_grad(0, b.emit1(OpType::SoftmaxCeBwd, "bwd", b.grad_category(0), inputs,
                        Attrs{{"reduction", b.attrs().s("reduction")},
                              {"ignore_index", b.attrs().i("ignore_index")}}));
}

void softmax_ce_bwd_kernel(KernelContext& k) {
  const auto rows = static_cast<size_t>(k.in[0].shape[0]);
  const auto classes = static_cast<size_t>(k.in[0].shape[1]);
  check_labels(k, rows, classes);
  numerics::softmax_ce_grad(k.in[0].f32, k.in[1].i32, rows, classes,
                            k.op.attrs.s("reduction") == "mean", ignore_index(k.op),
                            k.in[2].present() ? k.in[2].f32 : nullptr, k.out[0].f32);
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

void encode_loss(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.enumerated(Field::Reduction, "reduction");
  w.i32(Field::IgnoreIndex, "ignore_index");
}

void decode_loss(const Instruction& inst, ir::Attrs& a) {
  a.set("reduction", field_enum_name(inst, Field::Reduction));
  a.set("ignore_index", field_i64(inst, Field::IgnoreIndex));
}

// The gradient's in_place has no field: it is the dlogits operand being the logits operand.
void decode_loss_bwd(const Instruction& inst, ir::Attrs& a) {
  decode_loss(inst, a);
  a.set("in_place", int64_t{inst.operand(Slot::DLogits) == inst.operand(Slot::Logits) ? 1 : 0});
}

}  // namespace

void register_loss_ops(OpRegistry& r) {
  const SlotBinding logits{"logits", Slot::Logits}, labels{"labels", Slot::Labels};
  add_op(r,
         OpSchema{OpType::SoftmaxCe,
                  FusionClass::Ppu,
                  {{"logits"}, {"labels"}},
                  {"loss"},
                  {{"reduction", AttrKind::String, AttrValue(std::string("mean"))},
                   {"ignore_index", AttrKind::Int, AttrValue(int64_t{-100})}},
                  infer_softmax_ce,
                  softmax_ce_backward,
                  softmax_ce_kernel,
                  "Cross-entropy of softmax(logits [N,C] f32) against class indices labels [N] "
                  "i32, summed or averaged over the batch (reduction \"sum\" or \"mean\") into "
                  "loss [1]; numerically stable (subtracts each row's max). A label outside "
                  "[0,C) other than ignore_index (default -100; such a row adds no loss and the "
                  "mean does not "
                  "count it) makes the interpreter throw a UserError naming the op and the label."},
         {OpType::SoftmaxCe,
          Opcode::SoftmaxCe,
          {logits, labels},
          {{"loss", Slot::Loss}},
          false,
          encode_loss,
          decode_loss,
          [](const Instruction& inst) { return inst.operand(Slot::Loss).has_value(); }});
  add_op(r,
         OpSchema{OpType::SoftmaxCeBwd,
                  FusionClass::Ppu,
                  {{"logits"}, {"labels"}, {"dloss", true}},
                  {"dlogits"},
                  {{"reduction", AttrKind::String, AttrValue(std::string("mean"))},
                   {"ignore_index", AttrKind::Int, AttrValue(int64_t{-100})},
                   {"in_place", AttrKind::Int, AttrValue(int64_t{0})}},
                  infer_softmax_ce_bwd,
                  nullptr,
                  softmax_ce_bwd_kernel,
                  "Gradient of softmax_ce: (softmax(logits) - onehot(labels)), divided by N for "
                  "\"mean\", times dloss [1] when given (absent: the loss is the one minimised, "
                  "gradient 1). in_place=1 writes dlogits over the logits (pass in-place sets "
                  "it where nothing reads the logits afterwards). No backward rule."},
         {OpType::SoftmaxCeBwd,
          Opcode::SoftmaxCe,
          {logits, labels, {"dloss", Slot::DLoss}},
          {{"dlogits", Slot::DLogits}},
          false,
          encode_loss,
          decode_loss_bwd,
          [](const Instruction& inst) { return inst.operand(Slot::DLogits).has_value(); }});
}

}  // namespace s2::ir
