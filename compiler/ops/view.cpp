// Views: reshape, transpose, slice and expand make a new tensor over the input's data node and
// change only its shape, strides and offset (PyTorch/NumPy view semantics; a reshape of a
// strided view follows Tensor.view's rule, view_strides in graph.h). Nothing is computed, so
// they have no kernel; the interpreter and the lowering read the strides.

#include <memory>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

OutputSpec view_of_input(const Tensor& x) {
  OutputSpec v;
  v.dtype = x.dtype;
  v.alias_input = 0;
  v.offset = x.offset;
  return v;
}

// ---- reshape ----

std::vector<OutputSpec> infer_reshape(const InferContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::vector<int64_t>& shape = ctx.attrs().ints("shape");
  if (shape.empty()) ctx.fail("attribute 'shape' is empty");
  int64_t known = 1;
  int wildcard = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (wildcard >= 0) ctx.fail("shape=" + ints_text(shape) + " has more than one -1");
      wildcard = static_cast<int>(i);
    } else if (shape[i] <= 0) {
      ctx.fail("shape=" + ints_text(shape) + ": every entry must be positive or -1");
    } else {
      known *= shape[i];
    }
  }
  Shape out = shape;
  const int64_t numel = x.numel();
  if (wildcard >= 0) {
    if (numel % known != 0)
      ctx.fail("cannot reshape " + ctx.describe(0) + " (" + std::to_string(numel) +
               " elements) to shape=" + ints_text(shape));
    out[static_cast<size_t>(wildcard)] = numel / known;
  } else if (known != numel) {
    ctx.fail("cannot reshape " + ctx.describe(0) + " (" + std::to_string(numel) +
             " elements) to shape=" + ints_text(shape) + " (" + std::to_string(known) +
             " elements)");
  }
  const std::optional<Shape> strides = view_strides(x.shape, x.strides, out);
  if (!strides)
    ctx.fail(ctx.describe(0) + " with strides " + ints_text(x.strides) + " cannot be viewed as " +
             "shape=" + ints_text(out) +
             " (its elements are not evenly spaced there); copy it "
             "first");
  OutputSpec v = view_of_input(x);
  v.shape = out;
  v.strides = *strides;
  return {v};
}

// The gradient may arrive as a strided view (from a transpose's backward) that x's shape
// cannot view (view_strides); such a gradient is first copied dense by scale(alpha=1), which
// the interpreter and the PPU read through its strides.
void reshape_backward(BackwardContext& b) {
  TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  const OpCategory category = b.grad_category(0);
  const Tensor& dyt = b.tensor(dy);
  if (!view_strides(dyt.shape, dyt.strides, b.tensor(b.input(0)).shape))
    dy = b.emit1(OpType::Scale, "grad_dense", category, {dy}, Attrs{{"alpha", 1.0}, {"beta", 0.0}});
  const Shape x_shape = b.tensor(b.input(0)).shape;
  b.add_grad(0, b.emit1(OpType::Reshape, "grad", category, {dy}, Attrs{{"shape", x_shape}}));
}

// ---- transpose ----

std::vector<OutputSpec> infer_transpose(const InferContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::vector<int64_t>& perm = ctx.attrs().ints("perm");
  const size_t rank = x.shape.size();
  std::vector<bool> seen(rank, false);
  bool ok = perm.size() == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    ok = perm[i] >= 0 && static_cast<size_t>(perm[i]) < rank && !seen[static_cast<size_t>(perm[i])];
    if (ok) seen[static_cast<size_t>(perm[i])] = true;
  }
  if (!ok)
    ctx.fail("perm=" + ints_text(perm) + " is not a permutation of the " + std::to_string(rank) +
             " axes of " + ctx.describe(0));
  OutputSpec v = view_of_input(x);
  for (int64_t p : perm) {
    v.shape.push_back(x.shape[static_cast<size_t>(p)]);
    v.strides.push_back(x.strides[static_cast<size_t>(p)]);
  }
  return {v};
}

void transpose_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  const std::vector<int64_t>& perm = b.attrs().ints("perm");
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  b.add_grad(
      0, b.emit1(OpType::Transpose, "grad", b.grad_category(0), {dy}, Attrs{{"perm", inverse}}));
}

// ---- slice ----

// Python's rule for a slice bound with a positive step: negative counts from the end, then
// clamp to [0, size].
int64_t clamp_bound(int64_t bound, int64_t size) {
  if (bound < 0) bound += size;
  return bound < 0 ? 0 : (bound > size ? size : bound);
}

std::vector<OutputSpec> infer_slice(const InferContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = ctx.attrs().i("axis");
  const int64_t step = ctx.attrs().i("step");
  if (axis < -rank || axis >= rank)
    ctx.fail("axis " + std::to_string(axis) + " is out of range for " + ctx.describe(0));
  if (axis < 0) axis += rank;
  if (step <= 0) ctx.fail("step " + std::to_string(step) + " must be positive");
  const size_t a = static_cast<size_t>(axis);
  const int64_t size = x.shape[a];
  const int64_t start = clamp_bound(ctx.attrs().i("start"), size);
  const int64_t end = clamp_bound(ctx.attrs().i("end"), size);
  const int64_t length = end > start ? (end - start + step - 1) / step : 0;
  if (length == 0)
    ctx.fail("slice [" + std::to_string(ctx.attrs().i("start")) + ":" +
             std::to_string(ctx.attrs().i("end")) + ":" + std::to_string(step) + "] of axis " +
             std::to_string(axis) + " of " + ctx.describe(0) + " is empty");
  OutputSpec v = view_of_input(x);
  v.shape = x.shape;
  v.strides = x.strides;
  v.shape[a] = length;
  v.strides[a] = x.strides[a] * step;
  v.offset = x.offset + start * x.strides[a];
  return {v};
}

// The gradient of x[start:end] (step 1) is dy between zeros along the axis: a concat with zero
// constants, which simplify's add(concat, concat) rule merges when slices split x (so the sum
// of their gradients is one concat of the dys).
void slice_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  const Shape x_shape = b.tensor(b.input(0)).shape;
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  int64_t axis = b.attrs().i("axis");
  if (axis < 0) axis += rank;
  const size_t a = static_cast<size_t>(axis);
  if (b.attrs().i("step") != 1)
    throw UserError("autodiff: slice '" + b.forward().name + "' has step " +
                    std::to_string(b.attrs().i("step")) +
                    "; only slices with step 1 have a backward rule");
  const int64_t size = x_shape[a];
  const int64_t start = clamp_bound(b.attrs().i("start"), size);
  const int64_t length = b.tensor(dy).shape[a];
  const OpCategory category = b.grad_category(0);
  Graph& g = b.graph();
  auto zeros = [&](int64_t extent, const char* side) {
    Shape shape = x_shape;
    shape[a] = extent;
    auto values =
        std::make_shared<const HostArray>(DType::F32, static_cast<size_t>(shape_numel(shape)));
    return g.add_parameter(g.unique_name(b.forward().name + ".grad_zeros_" + side),
                           TensorRole::Scratch, DType::F32, shape, values, true);
  };
  std::vector<TensorId> parts;
  if (start > 0) parts.push_back(zeros(start, "before"));
  parts.push_back(dy);
  if (start + length < size) parts.push_back(zeros(size - start - length, "after"));
  if (parts.size() == 1) {
    b.add_grad(0, dy);
    return;
  }
  b.add_grad(0, b.emit1(OpType::Concat, "grad", category, parts, Attrs{{"axis", axis}}));
}

// ---- expand ----

// NumPy/PyTorch broadcast_to: every axis keeps its size or grows from 1, read with stride 0.
std::vector<OutputSpec> infer_expand(const InferContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::vector<int64_t>& shape = ctx.attrs().ints("shape");
  if (shape.size() != x.shape.size())
    ctx.fail("shape=" + ints_text(shape) + " has rank " + std::to_string(shape.size()) + ", " +
             ctx.describe(0) + " rank " + std::to_string(x.shape.size()) +
             " (reshape it to the same rank first)");
  OutputSpec v = view_of_input(x);
  v.shape = shape;
  v.strides = x.strides;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == x.shape[d]) continue;
    if (x.shape[d] != 1 || shape[d] < 1)
      ctx.fail("cannot expand axis " + std::to_string(d) + " of " + ctx.describe(0) + " to " +
               std::to_string(shape[d]) + " (only size-1 axes grow)");
    v.strides[d] = 0;
  }
  return {v};
}

// The gradient sums over the expanded axes, back to x's shape.
void expand_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  const Shape& x_shape = b.tensor(b.input(0)).shape;
  const Shape& y_shape = b.tensor(dy).shape;
  std::vector<int64_t> axes;
  for (size_t d = 0; d < x_shape.size(); ++d)
    if (x_shape[d] != y_shape[d]) axes.push_back(static_cast<int64_t>(d));
  if (axes.empty()) {
    b.add_grad(0, dy);
    return;
  }
  const OpCategory category = b.grad_category(0);
  const TensorId sum = b.emit1(OpType::ReduceSum, "grad_sum", category, {dy},
                               Attrs{{"axes", axes}, {"keepdims", int64_t{1}}});
  b.add_grad(0, sum);
}

}  // namespace

void register_view_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::Reshape,
                  FusionClass::View,
                  {{"x"}},
                  {"y"},
                  {{"shape", AttrKind::Ints, std::nullopt}},
                  infer_reshape,
                  reshape_backward,
                  nullptr,
                  "View of a dense x with a new shape (one entry may be -1: inferred). A strided "
                  "input is rejected: copy it first. The gradient is reshaped back."});
  add_op(r,
         OpSchema{OpType::Transpose,
                  FusionClass::View,
                  {{"x"}},
                  {"y"},
                  {{"perm", AttrKind::Ints, std::nullopt}},
                  infer_transpose,
                  transpose_backward,
                  nullptr,
                  "View with permuted axes: output axis i is input axis perm[i] (shape and "
                  "strides permuted, same data and offset). The gradient is transposed back with "
                  "the inverse permutation."});
  add_op(r,
         OpSchema{OpType::Slice,
                  FusionClass::View,
                  {{"x"}},
                  {"y"},
                  {{"axis", AttrKind::Int, std::nullopt},
                   {"start", AttrKind::Int, std::nullopt},
                   {"end", AttrKind::Int, std::nullopt},
                   {"step", AttrKind::Int, AttrValue(int64_t{1})}},
                  infer_slice,
                  slice_backward,
                  nullptr,
                  "View of x[start:end:step] along `axis` (Python rules: negative axis, start and "
                  "end count from the end; start and end are clamped; step must be positive; an "
                  "empty result is an error). The gradient (step 1) is dy between zero "
                  "constants, joined by concat."});
  add_op(r, OpSchema{OpType::Expand,
                     FusionClass::View,
                     {{"x"}},
                     {"y"},
                     {{"shape", AttrKind::Ints, std::nullopt}},
                     infer_expand,
                     expand_backward,
                     nullptr,
                     "View of x broadcast to `shape` (same rank; an axis keeps its size or grows "
                     "from 1, read with stride 0), as NumPy's broadcast_to. The gradient is "
                     "reduce_sum over the grown axes with keepdims."});
}

}  // namespace s2::ir
