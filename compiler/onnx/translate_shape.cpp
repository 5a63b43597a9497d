// Static shape computations and the ops that rearrange a tensor without computing: Shape,
// Gather, Unsqueeze, Squeeze, Sub, Div and Concat/Slice of constants fold at import time
// (PyTorch exports `x.size(1) // 2` and `view(n, g, c // g, h, w)` as such chains); Slice,
// Split and Transpose of a tensor are the IR's views; ReduceMean over H and W is global average
// pooling, over other axes a reduce_sum and a scale.
//
// A fold needs every input to be an INT64/INT32 constant (an initializer, a Constant, or an
// earlier fold); the same ops on a computed tensor are errors naming the node, since no
// instruction computes them.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compiler/onnx/translators.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

IntConstant need_int(NodeContext& n, size_t i, const char* what) {
  std::optional<IntConstant> c = n.int_constant(i);
  if (!c)
    n.fail(std::string("input ") + std::to_string(i) + " (" + what +
           ") must be an integer constant or a static shape computation; ops on computed "
           "tensors of this type are not supported");
  return *c;
}

// An axis in [-rank, rank) made non-negative, or a failure naming it.
int64_t normal_axis(NodeContext& n, int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    n.fail(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

void translate_shape(NodeContext& n) {
  n.allow_attributes({"start", "end"});
  ir::Shape shape;
  if (std::optional<IntConstant> c = n.int_constant(0))
    shape = c->dims;
  else
    shape = n.input_tensor(0).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  auto clamp = [&](int64_t v) {
    if (v < 0) v += rank;
    return std::clamp<int64_t>(v, 0, rank);
  };
  const int64_t start = clamp(n.attr_int("start", 0));
  const int64_t end = clamp(n.attr_int("end", rank));
  IntConstant out;
  for (int64_t d = start; d < end; ++d)
    out.values.push_back(shape[static_cast<size_t>(d)]);
  out.dims = {static_cast<int64_t>(out.values.size())};
  n.set_int_output(0, out);
}

void translate_gather(NodeContext& n) {
  n.allow_attributes({"axis"});
  const IntConstant data = need_int(n, 0, "data");
  const IntConstant indices = need_int(n, 1, "indices");
  if (data.dims.size() != 1)
    n.fail("gathers from a constant of rank " + std::to_string(data.dims.size()) +
           "; only rank 1 is supported");
  normal_axis(n, n.attr_int("axis", 0), 1, "axis");
  IntConstant out;
  out.dims = indices.dims;
  for (int64_t i : indices.values) {
    const int64_t at = normal_axis(n, i, data.dims[0], "index");
    out.values.push_back(data.values[static_cast<size_t>(at)]);
  }
  n.set_int_output(0, out);
}

// Unsqueeze's and Squeeze's axes: input 1 from opset 13 on, the attribute before.
std::vector<int64_t> axes_of(NodeContext& n) {
  if (n.opset() >= 13) {
    if (n.has_attr("axes")) n.fail_attr("axes", "is an input from opset 13 on");
    return n.has_input(1) ? need_int(n, 1, "axes").values : std::vector<int64_t>{};
  }
  return n.attr_ints("axes", {});
}

void translate_unsqueeze(NodeContext& n) {
  n.allow_attributes({"axes"});
  std::vector<int64_t> axes = axes_of(n);
  if (axes.empty()) n.fail("has no axes");
  const std::optional<IntConstant> c = n.int_constant(0);
  ir::Shape shape = c ? c->dims : n.input_tensor(0).shape;
  const auto rank = static_cast<int64_t>(shape.size() + axes.size());
  for (int64_t& a : axes)
    a = normal_axis(n, a, rank, "axis");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    n.fail("axes " + ir::ints_text(axes) + " repeat an axis");
  for (int64_t a : axes)
    shape.insert(shape.begin() + a, 1);
  if (c) {
    n.set_int_output(0, IntConstant{shape, c->values});
    return;
  }
  n.set_output(0, n.add(OpType::Reshape, {n.input(0)}, Attrs{{"shape", shape}}));
}

void translate_squeeze(NodeContext& n) {
  n.allow_attributes({"axes"});
  std::vector<int64_t> axes = axes_of(n);
  const std::optional<IntConstant> c = n.int_constant(0);
  const ir::Shape in = c ? c->dims : n.input_tensor(0).shape;
  const auto rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  for (int64_t a : axes) {
    const int64_t k = normal_axis(n, a, rank, "axis");
    if (in[static_cast<size_t>(k)] != 1)
      n.fail("axis " + std::to_string(a) + " of " + ir::ints_text(in) + " is not 1");
    drop[static_cast<size_t>(k)] = true;
  }
  ir::Shape shape;
  for (size_t k = 0; k < in.size(); ++k)
    if (!(axes.empty() ? in[k] == 1 : drop[k])) shape.push_back(in[k]);
  if (c) {
    n.set_int_output(0, IntConstant{shape, c->values});
    return;
  }
  if (shape.empty()) shape = {1};
  n.set_output(0, n.add(OpType::Reshape, {n.input(0)}, Attrs{{"shape", shape}}));
}

// Element-wise integer arithmetic of constants: equal shapes, or one side a single value.
void fold_arithmetic(NodeContext& n, const IntConstant& a, const IntConstant& b, char op) {
  const bool a_one = count(a.dims) == 1, b_one = count(b.dims) == 1;
  if (a.dims != b.dims && !a_one && !b_one)
    n.fail("constants " + ir::ints_text(a.dims) + " and " + ir::ints_text(b.dims) +
           " do not broadcast (only equal shapes or a single value are folded)");
  IntConstant out{a_one && !b_one ? b.dims : a.dims, {}};
  const size_t size = std::max(a.values.size(), b.values.size());
  for (size_t i = 0; i < size; ++i) {
    const int64_t x = a.values[a_one ? 0 : i], y = b.values[b_one ? 0 : i];
    switch (op) {
      case '+':
        out.values.push_back(x + y);
        break;
      case '-':
        out.values.push_back(x - y);
        break;
      case '*':
        out.values.push_back(x * y);
        break;
      default:
        if (y == 0) n.fail("divides by zero");
        out.values.push_back(x / y);  // ONNX integer Div truncates
    }
  }
  n.set_int_output(0, out);
}

void translate_integer_only(NodeContext& n, char op) {
  n.allow_attributes({});
  const IntConstant a = need_int(n, 0, "A");
  const IntConstant b = need_int(n, 1, "B");
  fold_arithmetic(n, a, b, op);
}

void translate_sub(NodeContext& n) {
  if (!scale_by_float_constant(n, '-')) translate_integer_only(n, '-');
}

void translate_div(NodeContext& n) {
  if (!scale_by_float_constant(n, '/')) translate_integer_only(n, '/');
}

// Slice of a tensor: one IR slice view per axis. Of a rank-1 constant: folded.
// Split along one axis into slice views, one per output: the parts of a fused projection
// (GPT-2's c_attn output split into q, k and v) are read in place, never copied. The sizes come
// from the `split` input (opset 13+) or attribute (before), else equal parts per output.
void translate_split(NodeContext& n) {
  const bool sizes_as_input = n.opset() >= 13;
  if (sizes_as_input)
    n.allow_attributes({"axis"});
  else
    n.allow_attributes({"axis", "split"});
  const ir::Tensor& x = n.input_tensor(0);
  const auto rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = normal_axis(n, n.attr_int("axis", 0), rank, "axis");
  const int64_t size = x.shape[static_cast<size_t>(axis)];
  const auto outputs = static_cast<int64_t>(n.node().output_size());
  std::vector<int64_t> sizes;
  if (sizes_as_input && n.has_input(1))
    sizes = need_int(n, 1, "split").values;
  else if (!sizes_as_input)
    sizes = n.attr_ints("split", {});
  if (sizes.empty()) {
    if (outputs == 0 || size % outputs != 0)
      n.fail("axis " + std::to_string(axis) + " of " + ir::shape_text(x.dtype, x.shape) +
             " does not split into " + std::to_string(outputs) + " equal parts");
    sizes.assign(static_cast<size_t>(outputs), size / outputs);
  }
  int64_t total = 0;
  for (int64_t part : sizes) {
    if (part <= 0) n.fail("split sizes " + ir::ints_text(sizes) + " must be positive");
    total += part;
  }
  if (static_cast<int64_t>(sizes.size()) != outputs || total != size)
    n.fail("split sizes " + ir::ints_text(sizes) + " do not cut axis " + std::to_string(axis) +
           " of " + ir::shape_text(x.dtype, x.shape) + " into the node's " +
           std::to_string(outputs) + " outputs");
  ir::Graph& g = n.import().graph();
  const ir::TensorId in = n.input(0);
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const ir::TensorId part = g.add(
        OpType::Slice, g.unique_name(n.name() + "_" + std::to_string(i)), ir::OpCategory::Forward,
        {in}, Attrs{{"axis", axis}, {"start", start}, {"end", start + sizes[i]}, {"step", 1}});
    n.set_output(i, part);
    start += sizes[i];
  }
}

// Trilu of a FLOAT constant, folded at import into a constant tensor of the IR: a decoder's
// causal mask built as torch.full((T, T), -inf).triu(1), which simplify recognises as
// softmax's causal=1. Only constants: the IR has no triangle op.
void translate_trilu(NodeContext& n) {
  n.allow_attributes({"upper"});
  const bool upper = n.attr_int("upper", 1) != 0;
  const std::vector<float> values = n.constant_floats(0);
  const std::vector<int64_t> dims = n.constant_dims(0);
  if (dims.size() < 2)
    n.fail("input 0 has rank " + std::to_string(dims.size()) + "; Trilu needs 2 or more");
  int64_t k = 0;
  if (n.has_input(1)) {
    const std::vector<int64_t> kv = need_int(n, 1, "k").values;
    if (kv.size() != 1) n.fail("input 1 (k) must hold one value");
    k = kv[0];
  }
  const int64_t rows = dims[dims.size() - 2], cols = dims.back();
  std::vector<float> out = values;
  for (size_t e = 0; e < out.size(); ++e) {
    const auto at = static_cast<int64_t>(e);
    const int64_t i = (at / cols) % rows, j = at % cols;
    const bool kept = upper ? j - i >= k : j - i <= k;
    if (!kept) out[e] = 0.0f;
  }
  ir::Graph& g = n.import().graph();
  n.set_output(
      0, g.add_parameter(g.unique_name(n.name()), ir::TensorRole::Scratch, ir::DType::F32, dims,
                         std::make_shared<const ir::HostArray>(std::move(out)), true));
}

void translate_slice(NodeContext& n) {
  n.allow_attributes({});
  const std::vector<int64_t> starts = need_int(n, 1, "starts").values;
  const std::vector<int64_t> ends = need_int(n, 2, "ends").values;
  const std::optional<IntConstant> c = n.int_constant(0);
  const ir::Shape shape = c ? c->dims : n.input_tensor(0).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes(starts.size());
  for (size_t i = 0; i < axes.size(); ++i)
    axes[i] = static_cast<int64_t>(i);
  if (n.has_input(3)) axes = need_int(n, 3, "axes").values;
  std::vector<int64_t> steps(starts.size(), 1);
  if (n.has_input(4)) steps = need_int(n, 4, "steps").values;
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    n.fail("starts, ends, axes and steps have different lengths");
  for (int64_t s : steps)
    if (s <= 0) n.fail("step " + std::to_string(s) + " is not supported (only positive steps)");
  if (c) {
    if (rank != 1 || axes.size() != 1)
      n.fail("slices a constant of rank " + std::to_string(rank) + "; only rank 1 is folded");
    normal_axis(n, axes[0], 1, "axis");
    const auto size = static_cast<int64_t>(c->values.size());
    auto clamp = [&](int64_t v) {
      if (v < 0) v += size;
      return std::clamp<int64_t>(v, 0, size);
    };
    IntConstant out;
    for (int64_t i = clamp(starts[0]); i < clamp(ends[0]); i += steps[0])
      out.values.push_back(c->values[static_cast<size_t>(i)]);
    out.dims = {static_cast<int64_t>(out.values.size())};
    n.set_int_output(0, out);
    return;
  }
  ir::TensorId t = n.input(0);
  ir::Graph& g = n.import().graph();
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = normal_axis(n, axes[i], rank, "axis");
    // ONNX clamps like Python; the IR's slice does too, after the bounds fit an int64.
    const int64_t size = shape[static_cast<size_t>(axis)];
    const int64_t start = std::clamp<int64_t>(starts[i], -size - 1, size + 1);
    const int64_t end = std::clamp<int64_t>(ends[i], -size - 1, size + 1);
    t = g.add(OpType::Slice, g.unique_name(n.name() + (i ? "_" + std::to_string(i) : "")),
              ir::OpCategory::Forward, {t},
              Attrs{{"axis", axis}, {"start", start}, {"end", end}, {"step", steps[i]}});
  }
  n.set_output(0, t);
}

void translate_transpose(NodeContext& n) {
  n.allow_attributes({"perm"});
  const auto rank = static_cast<int64_t>(n.input_tensor(0).shape.size());
  std::vector<int64_t> reversed;
  for (int64_t d = rank; d-- > 0;)
    reversed.push_back(d);
  n.set_output(
      0, n.add(OpType::Transpose, {n.input(0)}, Attrs{{"perm", n.attr_ints("perm", reversed)}}));
}

// ReduceMean over H and W of [N,C,H,W]: global average pooling (then a reshape to [N,C]
// unless keepdims). Over any other axes: reduce_sum, then scale by 1/count (rounded to f32 once,
// so a count that is not a power of two can differ from PyTorch's division by one ulp).
void translate_reduce_mean(NodeContext& n) {
  n.allow_attributes({"axes", "keepdims", "noop_with_empty_axes"});
  const ir::Tensor& x = n.input_tensor(0);
  std::vector<int64_t> axes =
      n.opset() >= 18 ? (n.has_input(1) ? need_int(n, 1, "axes").values : std::vector<int64_t>{})
                      : n.attr_ints("axes", {});
  const auto rank = static_cast<int64_t>(x.shape.size());
  for (int64_t& a : axes)
    a = normal_axis(n, a, rank, "axis");
  std::sort(axes.begin(), axes.end());
  if (axes.empty() || std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    n.fail("reduces axes " + ir::ints_text(axes) + " of " + ir::shape_text(x.dtype, x.shape) +
           "; name each reduced axis once");
  if (rank != 4 || axes != std::vector<int64_t>{2, 3}) {
    // Any other mean (a transformer's mean over its tokens): a sum, then 1/count.
    const bool keep = n.attr_int("keepdims", 1) != 0;
    int64_t count = 1;
    for (int64_t a : axes)
      count *= x.shape[static_cast<size_t>(a)];
    ir::Graph& g = n.import().graph();
    const ir::TensorId sum =
        g.add(OpType::ReduceSum, g.unique_name(n.name() + "/sum"), ir::OpCategory::Forward,
              {n.input(0)}, Attrs{{"axes", axes}, {"keepdims", int64_t{keep ? 1 : 0}}});
    n.set_output(0, n.add(OpType::Scale, {sum},
                          Attrs{{"alpha", 1.0 / static_cast<double>(count)}, {"beta", 0.0}}));
    return;
  }
  const std::vector<int64_t> plane{x.shape[2], x.shape[3]};
  const ir::Shape flat{x.shape[0], x.shape[1]};
  ir::TensorId y =
      n.add(OpType::AvgPool2d, {n.input(0)}, Attrs{{"kernel", plane}, {"stride", plane}});
  if (n.attr_int("keepdims", 1) == 0) {
    ir::Graph& g = n.import().graph();
    y = g.add(OpType::Reshape, g.unique_name(n.name() + "/flatten"), ir::OpCategory::Forward, {y},
              Attrs{{"shape", flat}});
  }
  n.set_output(0, y);
}

}  // namespace

// Add and Mul of two integer constants: folded here (translate_tensor.cpp calls it first).
bool fold_integer_arithmetic(NodeContext& n, char op) {
  const std::optional<IntConstant> a = n.int_constant(0), b = n.int_constant(1);
  if (!a || !b) return false;
  n.allow_attributes({});
  fold_arithmetic(n, *a, *b, op);
  return true;
}

// Concat of rank-1 integer constants along axis 0: folded.
bool fold_integer_concat(NodeContext& n) {
  IntConstant out;
  for (int i = 0; i < n.node().input_size(); ++i) {
    const std::optional<IntConstant> c = n.int_constant(static_cast<size_t>(i));
    if (!c) return false;
    if (c->dims.size() != 1)
      n.fail("concatenates integer constants of rank " + std::to_string(c->dims.size()) +
             "; only rank 1 is folded");
    out.values.insert(out.values.end(), c->values.begin(), c->values.end());
  }
  if (n.node().input_size() == 0) return false;
  normal_axis(n, n.attr_int("axis", 0), 1, "axis");
  out.dims = {static_cast<int64_t>(out.values.size())};
  n.set_int_output(0, out);
  return true;
}

void add_shape_ops(OnnxOpRegistry& r) {
  r.add("Shape", {translate_shape, {}, {}});
  r.add("Gather", {translate_gather, {1}, {}});
  r.add("Unsqueeze", {translate_unsqueeze, {1}, {}});
  r.add("Squeeze", {translate_squeeze, {1}, {}});
  r.add("Sub", {translate_sub, {}, {}});
  r.add("Div", {translate_div, {}, {}});
  r.add("Slice", {translate_slice, {1, 2, 3, 4}, {}});
  r.add("Split", {translate_split, {1}, {}});
  r.add("Trilu", {translate_trilu, {0, 1}, {}});
  r.add("Transpose", {translate_transpose, {}, {}});
  r.add("ReduceMean", {translate_reduce_mean, {1}, {}});
}

}  // namespace s2::onnx_import
