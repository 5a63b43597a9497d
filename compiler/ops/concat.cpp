// concat and copy.
//
// concat joins its inputs along one axis (ONNX Concat, torch.cat). It is a view-class op: on
// the accelerator it computes nothing, because pass place-concat (compiler/passes/
// concat_placement.cpp) has each input's producer write straight into the input's slice of the
// concat's output - a strided descriptor, e.g. channels [c0, c0+C) of an [N,C_total,H,W]
// buffer - or, where that is impossible, inserts a `copy` that writes it there. The lowering
// refuses a concat whose inputs are not in place. The reference interpreter runs its kernel
// anyway (it copies; once the inputs are placed the copy writes the values already there), so
// graphs before placement - gradient checks, `s2c reference` - compute the same numbers.
//
// copy writes a dense (or placed) copy of any view: the DMA engines' `copy` instruction, used
// for concat inputs that cannot be placed and for permutations (ShuffleNet's channel shuffle)
// that a later reshape needs dense.

#include "compiler/ops/concat.h"

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

int64_t concat_axis(const Op& op, size_t rank) {
  const int64_t axis = op.attrs.i("axis");
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

std::vector<OutputSpec> infer_concat(const InferContext& ctx) {
  const Tensor& first = ctx.input(0);
  const int64_t rank = static_cast<int64_t>(first.shape.size());
  const int64_t given = ctx.attrs().i("axis");
  if (given < -rank || given >= rank)
    ctx.fail("axis " + std::to_string(given) + " is out of range for " + ctx.describe(0));
  const size_t a = static_cast<size_t>(concat_axis(ctx.op(), first.shape.size()));
  OutputSpec y;
  y.dtype = first.dtype;
  y.shape = first.shape;
  for (size_t i = 1; i < ctx.op().inputs.size(); ++i) {
    const Tensor& t = ctx.input(i);
    bool fits = t.dtype == first.dtype && t.shape.size() == first.shape.size();
    for (size_t d = 0; fits && d < t.shape.size(); ++d)
      fits = d == a || t.shape[d] == first.shape[d];
    if (!fits)
      ctx.fail("input " + std::to_string(i) + " " + shape_text(t.dtype, t.shape) +
               " does not match input 0 " + shape_text(first.dtype, first.shape) +
               " outside axis " + std::to_string(a));
    y.shape[a] += t.shape[a];
  }
  return {y};
}

void concat_kernel(KernelContext& k) {
  const Shape& out = k.out[0].shape;
  const size_t a = static_cast<size_t>(concat_axis(k.op, out.size()));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < a; ++d)
    outer *= out[d];
  for (size_t d = a + 1; d < out.size(); ++d)
    inner *= out[d];
  const int64_t row = out[a] * inner;  // output elements per outer index
  int64_t at = 0;                      // where the current input starts within a row
  for (const KernelInput& in : k.in) {
    const int64_t block = in.shape[a] * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t e = 0; e < block; ++e) {
        const size_t to = static_cast<size_t>(o * row + at + e);
        const size_t from = static_cast<size_t>(o * block + e);
        if (k.out[0].f32 != nullptr)
          k.out[0].f32[to] = in.f32[from];
        else
          k.out[0].i32[to] = in.i32[from];
      }
    at += block;
  }
}

// Each input's gradient is its slice of dy: a view, no copy.
void concat_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid()) return;
  const size_t n = b.forward().inputs.size();
  const size_t rank = b.tensor(dy).shape.size();
  const int64_t axis = concat_axis(b.forward(), rank);
  int64_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t length = b.tensor(b.input(i)).shape[static_cast<size_t>(axis)];
    if (b.needs_grad(i))
      b.add_grad(i, b.emit1(OpType::Slice, "grad" + std::to_string(i), b.grad_category(i), {dy},
                            Attrs{{"axis", axis}, {"start", start}, {"end", start + length}}));
    start += length;
  }
}

// ---- copy ----

std::vector<OutputSpec> infer_copy(const InferContext& ctx) {
  OutputSpec y;
  y.dtype = ctx.input(0).dtype;
  y.shape = ctx.shape(0);
  const int64_t host = ctx.attrs().i("host");
  if (host != 0 && host != 1) ctx.fail("host must be 0 or 1, got " + std::to_string(host));
  if (host == 1) y.space = isa::MemSpace::Host;
  if (ctx.space(0) == isa::MemSpace::Host && host == 1)
    ctx.fail("copies from host memory to host memory: a copy has at least one side in DRAM");
  return {y};
}

void copy_kernel(KernelContext& k) {
  const size_t n = static_cast<size_t>(k.out[0].numel());
  if (k.out[0].f32 != nullptr)
    std::copy(k.in[0].f32, k.in[0].f32 + n, k.out[0].f32);
  else
    std::copy(k.in[0].i32, k.in[0].i32 + n, k.out[0].i32);
}

void copy_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (dy.valid() && b.needs_grad(0)) b.add_grad(0, dy);
}

}  // namespace

Tensor concat_slot(const Graph& graph, const Op& op, size_t i) {
  const Tensor& y = graph.tensor(op.outputs.at(0));
  const size_t a = static_cast<size_t>(concat_axis(op, y.shape.size()));
  int64_t start = 0;
  for (size_t j = 0; j < i; ++j)
    start += graph.tensor(op.inputs.at(j)).shape[a];
  Tensor slot = y;
  slot.name.clear();
  slot.producer = OpId();
  slot.shape[a] = graph.tensor(op.inputs.at(i)).shape[a];
  slot.offset = y.offset + start * y.strides[a];
  return slot;
}

bool same_layout(const Tensor& t, const Tensor& slot) {
  if (t.data != slot.data || t.shape != slot.shape) return false;
  return t.offset == slot.offset && same_strides(t.shape, t.strides, slot.strides);
}

bool concat_is_placed(const Graph& graph, const Op& op) {
  for (size_t i = 0; i < op.inputs.size(); ++i)
    if (!same_layout(graph.tensor(op.inputs[i]), concat_slot(graph, op, i))) return false;
  return true;
}

void register_concat_ops(OpRegistry& r) {
  add_op(r, OpSchema{OpType::Concat,
                     FusionClass::View,
                     {{"x", false, true}},
                     {"y"},
                     {{"axis", AttrKind::Int, std::nullopt}},
                     infer_concat,
                     concat_backward,
                     concat_kernel,
                     "y = the inputs joined along `axis` (negative counts from the end); every "
                     "other dimension and the element type must match. Computes nothing on the "
                     "accelerator: pass place-concat writes each input into its slice of y "
                     "(inserting a copy where the producer cannot). The gradient of each input "
                     "is its slice of dy."});
  add_op(r,
         OpSchema{OpType::Copy,
                  FusionClass::Dma,
                  {{"x"}},
                  {"y"},
                  {{"host", AttrKind::Int, AttrValue(int64_t{0})}},
                  infer_copy,
                  copy_backward,
                  copy_kernel,
                  "y = x, written densely (or into the slice pass place-concat gives y) by the "
                  "DMA engines; x may be any view. With host=1, y is in host memory, behind the "
                  "target's host link: a swap-out (x may then be host data only through another "
                  "copy: a swap-in is a copy of host data with host=0). The gradient passes "
                  "through."},
         {OpType::Copy,
          Opcode::Copy,
          {{"x", Slot::Src}},
          {{"y", Slot::Dst}},
          false,
          encode_nothing,
          decode_nothing,
          always});
}

}  // namespace s2::ir
