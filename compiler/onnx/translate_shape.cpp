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

#include "compiler/onnx/tensor_data.h"
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

const IntConstant& need_int(NodeContext& n, size_t i, const char* what) {
  const IntConstant* c = n.int_constant(i);
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
  if (const IntConstant* c = n.int_constant(0))
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

// Gather from a tensor: rows of a weight table [rows, width] along axis 0 are an embedding
// lookup, of the token ids (GPT-2's wte) or of constant ids (wpe's positions); otherwise a
// constant index is a slice view (and a reshape dropping the axis for a scalar index: ViT's
// x[:, 0]).
void gather_from_tensor(NodeContext& n) {
  const ir::Tensor& data = n.input_tensor(0);
  const auto rank = static_cast<int64_t>(data.shape.size());
  const int64_t axis = normal_axis(n, n.attr_int("axis", 0), rank, "axis");
  ir::Graph& g = n.import().graph();
  const bool table = !data.producer.valid() && rank == 2 && axis == 0 &&
                     g.data(data.data).role == isa::TensorRole::Weight;
  if (const IntConstant* c = n.int_constant(1); c && table) {
    // Constant rows of a weight table (GPT-2's wpe(arange(T))): an embedding lookup of
    // constant ids, as the zoo builds position embeddings.
    std::vector<int32_t> ids;
    for (int64_t v : c->values)
      ids.push_back(static_cast<int32_t>(normal_axis(n, v, data.shape[0], "index")));
    const ir::TensorId id_t =
        g.add_parameter(g.unique_name(n.name() + "/ids"), isa::TensorRole::Scratch, ir::DType::I32,
                        c->dims.empty() ? ir::Shape{1} : c->dims,
                        std::make_shared<ir::HostArray>(std::move(ids)), true);
    ir::TensorId y = n.add(OpType::Embedding, {n.input(0), id_t}, {});
    if (c->dims.empty()) y = reshape_of(n, y, {data.shape[1]}, "/row");
    n.set_output(0, y);
    return;
  }
  if (const IntConstant* c = n.int_constant(1)) {
    if (c->dims.size() > 1 || c->values.empty())
      n.fail("indices " + ir::ints_text(c->dims) +
             " of a tensor gather must be a scalar or a non-empty vector");
    const int64_t extent = data.shape[static_cast<size_t>(axis)];
    const int64_t first = normal_axis(n, c->values[0], extent, "index");
    for (size_t i = 1; i < c->values.size(); ++i)
      if (normal_axis(n, c->values[i], extent, "index") != first + static_cast<int64_t>(i))
        n.fail("indices " + ir::ints_text(c->values) +
               " are not consecutive; only a slice of a tensor is supported");
    const auto count_of = static_cast<int64_t>(c->values.size());
    ir::TensorId t = n.input(0);
    if (count_of != extent || !c->dims.empty())
      t = g.add(OpType::Slice, g.unique_name(n.name() + (c->dims.empty() ? "/slice" : "")),
                ir::OpCategory::Forward, {t},
                Attrs{{"axis", axis}, {"start", first}, {"end", first + count_of}});
    if (c->dims.empty()) {
      ir::Shape shape = data.shape;
      shape.erase(shape.begin() + axis);
      t = reshape_of(n, t, shape, "");
    }
    n.set_output(0, t);
    return;
  }
  const ir::Tensor& ids = n.input_tensor(1);
  if (axis != 0 || rank != 2 || data.dtype != ir::DType::F32 || ids.dtype != ir::DType::I32)
    n.fail("gathers " + ir::shape_text(ids.dtype, ids.shape) + " computed indices from " +
           ir::shape_text(data.dtype, data.shape) + " along axis " + std::to_string(axis) +
           "; only an embedding lookup (token ids into an f32 table [rows, width] along axis 0) "
           "is supported");
  n.set_output(0, n.add(OpType::Embedding, {n.input(0), n.input(1)}, {}));
}

void translate_gather(NodeContext& n) {
  n.allow_attributes({"axis"});
  if (!n.int_constant(0)) {
    gather_from_tensor(n);
    return;
  }
  const IntConstant& data = need_int(n, 0, "data");
  const IntConstant& indices = need_int(n, 1, "indices");
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
  const IntConstant* c = n.int_constant(0);
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
  const IntConstant* c = n.int_constant(0);
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
      case '=':
        out.values.push_back(x == y ? 1 : 0);
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
  const IntConstant& a = need_int(n, 0, "A");
  const IntConstant& b = need_int(n, 1, "B");
  fold_arithmetic(n, a, b, op);
}

void translate_sub(NodeContext& n) {
  if (!scale_by_float_constant(n, '-')) translate_integer_only(n, '-');
}

void translate_div(NodeContext& n) {
  if (!scale_by_float_constant(n, '/')) translate_integer_only(n, '/');
}

// Equal, ConstantOfShape and Where of integer constants fold: PyTorch exports
// `t.expand(n, -1, -1)` (ViT's class token) as a Where that replaces each -1 of the target
// shape by 1 before the Expand. The folded Equal holds 0 or 1 as INT64.
void translate_equal(NodeContext& n) {
  translate_integer_only(n, '=');
}

void translate_constant_of_shape(NodeContext& n) {
  n.allow_attributes({"value"});
  const IntConstant& shape = need_int(n, 0, "shape");
  if (shape.dims.size() != 1)
    n.fail("input 0 (shape) has rank " + std::to_string(shape.dims.size()) + "; it must be 1");
  for (int64_t d : shape.values)
    if (d < 0) n.fail("shape " + ir::ints_text(shape.values) + " has a negative dimension");
  // The constant is materialised here: a few bytes of shape must not ask for unbounded memory
  // (nor overflow the count). Models build masks and fills far below this.
  constexpr auto kMaxElements = static_cast<int64_t>(kMaxComputedElements);
  int64_t elements = 1;
  for (int64_t d : shape.values) {
    if (d != 0 && elements > kMaxElements / d)
      n.fail("shape " + ir::ints_text(shape.values) + " has more than " +
             std::to_string(kMaxElements) +
             " elements, the limit for a constant the importer builds");
    elements *= d;
  }
  const onnx::TensorProto* value = n.attr_tensor("value");
  const std::string where = n.import().path() + ": node '" + n.name() + "' (ConstantOfShape)";
  if (!value)  // a float zero, which only an integer-folding consumer could not read
    n.fail_attr("value", "is missing; only an explicit INT64 or FLOAT value is supported");
  n.charge_constant(static_cast<uint64_t>(elements));  // with the import's other constants
  if (value->data_type() == onnx::TensorProto::FLOAT) {
    const std::vector<float> v = float_values(*value, where + ": attribute 'value'");
    if (v.size() != 1) n.fail_attr("value", "must hold one value");
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape.values)
      t.add_dims(d);
    t.mutable_float_data()->Resize(static_cast<int>(elements), v[0]);
    n.import().add_computed_constant(n.node().output(0), std::move(t));
    return;
  }
  const std::vector<int64_t> v = int_values(*value, where + ": attribute 'value'");
  if (v.size() != 1) n.fail_attr("value", "must hold one value");
  n.import().add_int_constant(  // counted above
      n.node().output(0),
      IntConstant{shape.values, std::vector<int64_t>(static_cast<size_t>(elements), v[0])});
}

}  // namespace

// Where of integer constants (condition, X, Y), folded: false when X or Y is not one.
bool fold_integer_where(NodeContext& n) {
  const IntConstant *cx = n.int_constant(1), *cy = n.int_constant(2);
  if (!cx || !cy) return false;
  n.allow_attributes({});
  const IntConstant& c = need_int(n, 0, "condition");
  const IntConstant& x = *cx;
  const IntConstant& y = *cy;
  ir::Shape dims;
  for (const IntConstant* t : {&c, &x, &y})
    if (count(t->dims) != 1) {
      if (!dims.empty() && t->dims != dims)
        n.fail("constants " + ir::ints_text(dims) + " and " + ir::ints_text(t->dims) +
               " do not broadcast (only equal shapes or a single value are folded)");
      dims = t->dims;
    }
  if (dims.empty()) dims = c.dims;
  IntConstant out{dims, {}};
  auto at = [](const IntConstant& t, int64_t i) {
    return t.values[count(t.dims) == 1 ? 0 : static_cast<size_t>(i)];
  };
  for (int64_t i = 0; i < count(dims); ++i)
    out.values.push_back(at(c, i) != 0 ? at(x, i) : at(y, i));
  n.set_int_output(0, out);
  return true;
}

namespace {

// Not and Cast of integer or boolean constants (the causal mask GPT-2 builds as
// ~ones(T, T).tril()), folded; a cast to BOOL maps nonzero to 1. Casts of computed tensors are
// not supported: the IR's tensors are f32 or i32 by construction.
void translate_not(NodeContext& n) {
  n.allow_attributes({});
  IntConstant c = need_int(n, 0, "X");
  for (int64_t& v : c.values)
    v = v != 0 ? 0 : 1;
  n.set_int_output(0, c);
}

void translate_cast(NodeContext& n) {
  n.allow_attributes({"to", "saturate"});
  const int64_t to = n.attr_int("to", 0);
  IntConstant c = need_int(n, 0, "input");
  if (to == onnx::TensorProto::BOOL) {
    for (int64_t& v : c.values)
      v = v != 0 ? 1 : 0;
  } else if (to != onnx::TensorProto::INT64 && to != onnx::TensorProto::INT32) {
    n.fail_attr("to", "= " + elem_type_name(static_cast<int32_t>(to)) +
                          " is not supported; only casts of integer constants to INT64, INT32 "
                          "or BOOL fold");
  }
  n.set_int_output(0, c);
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
// softmax's causal=1. Trilu of an integer or BOOL constant folds into an integer constant.
// Only constants: the IR has no triangle op.
// Zeroes the elements of `values` (dims `dims`, rank >= 2) outside Trilu's triangle.
template <typename T>
void keep_triangle(NodeContext& n, const std::vector<int64_t>& dims, std::vector<T>* values) {
  if (dims.size() < 2)
    n.fail("input 0 has rank " + std::to_string(dims.size()) + "; Trilu needs 2 or more");
  const bool upper = n.attr_int("upper", 1) != 0;
  int64_t k = 0;
  if (n.has_input(1)) {
    const std::vector<int64_t> kv = need_int(n, 1, "k").values;
    if (kv.size() != 1) n.fail("input 1 (k) must hold one value");
    k = kv[0];
  }
  const int64_t rows = dims[dims.size() - 2], cols = dims.back();
  for (size_t e = 0; e < values->size(); ++e) {
    const auto at = static_cast<int64_t>(e);
    const int64_t i = (at / cols) % rows, j = at % cols;
    if (!(upper ? j - i >= k : j - i <= k)) (*values)[e] = T{0};
  }
}

void translate_trilu(NodeContext& n) {
  n.allow_attributes({"upper"});
  if (const IntConstant* c = n.int_constant(0)) {
    // A boolean or integer triangle (torch.ones(T, T, dtype=bool).tril()).
    IntConstant triangle = *c;
    keep_triangle(n, triangle.dims, &triangle.values);
    n.set_int_output(0, std::move(triangle));
    return;
  }
  std::vector<float> values = n.constant_floats(0);
  const std::vector<int64_t> dims = n.constant_dims(0);
  keep_triangle(n, dims, &values);
  ir::Graph& g = n.import().graph();
  n.set_output(
      0, g.add_parameter(g.unique_name(n.name()), ir::TensorRole::Scratch, ir::DType::F32, dims,
                         std::make_shared<const ir::HostArray>(std::move(values)), true));
}

void translate_slice(NodeContext& n) {
  n.allow_attributes({});
  const std::vector<int64_t> starts = need_int(n, 1, "starts").values;
  const std::vector<int64_t> ends = need_int(n, 2, "ends").values;
  const IntConstant* c = n.int_constant(0);
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
  const IntConstant *a = n.int_constant(0), *b = n.int_constant(1);
  if (!a || !b) return false;
  n.allow_attributes({});
  fold_arithmetic(n, *a, *b, op);
  return true;
}

// Concat of rank-1 integer constants along axis 0: folded.
bool fold_integer_concat(NodeContext& n) {
  IntConstant out;
  for (int i = 0; i < n.node().input_size(); ++i) {
    const IntConstant* c = n.int_constant(static_cast<size_t>(i));
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
  r.add("Equal", {translate_equal, {}, {}});
  r.add("ConstantOfShape", {translate_constant_of_shape, {0}, {}});
  r.add("Not", {translate_not, {}, {}});
  r.add("Cast", {translate_cast, {}, {}});
  r.add("Slice", {translate_slice, {1, 2, 3, 4}, {}});
  r.add("Split", {translate_split, {1}, {}});
  r.add("Trilu", {translate_trilu, {0, 1}, {}});
  r.add("Transpose", {translate_transpose, {}, {}});
  r.add("ReduceMean", {translate_reduce_mean, {1}, {}});
}

}  // namespace s2::onnx_import
