// Element-wise ops and ops that only move or name values: Relu, Add and Mul (broadcasting),
// Expand, Where (a mask), Dropout, Identity, Constant, Flatten, Reshape, Concat and Pad.

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "compiler/onnx/translators.h"
#include "compiler/ops/dropout.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

void translate_relu(NodeContext& n) {
  n.allow_attributes({});
  n.set_output(0, n.add(OpType::Relu, {n.input(0)}, {}));
}

// ONNX's multidirectional broadcasting (NumPy's rule): shapes align at the right, and each
// axis is equal or 1 on one side. The IR's add and mul take two tensors of one shape, so an
// input of another shape is reshaped to the common rank and expanded (a stride-0 view, no
// copy): squeeze-excitation's [N,C,1,1] gate times its [N,C,H,W] map reads the gate in place.
// The expand's gradient sums over the grown axes.
ir::TensorId broadcast_to(NodeContext& n, ir::TensorId t, const ir::Shape& out, const char* side) {
  ir::Graph& g = n.import().graph();
  const ir::Shape shape = g.tensor(t).shape;
  if (shape == out) return t;
  if (shape.size() < out.size()) {
    ir::Shape padded(out.size() - shape.size(), 1);
    padded.insert(padded.end(), shape.begin(), shape.end());
    t = g.add(OpType::Reshape, g.unique_name(n.name() + "/reshape_" + side),
              ir::OpCategory::Forward, {t}, Attrs{{"shape", padded}});
  }
  return g.add(OpType::Expand, g.unique_name(n.name() + "/expand_" + side), ir::OpCategory::Forward,
               {t}, Attrs{{"shape", out}});
}

// NumPy's broadcast of shapes a and b (aligned at the right, each axis equal or 1 on one
// side), or nullopt with *conflict saying where they disagree: "axis 2: 3 vs 8".
std::optional<ir::Shape> broadcast_shape(const ir::Shape& a, const ir::Shape& b,
                                         std::string* conflict) {
  ir::Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      *conflict = "axis " + std::to_string(out.size() - 1 - i) + ": " + std::to_string(da) +
                  " vs " + std::to_string(db);
      return std::nullopt;
    }
    out[out.size() - 1 - i] = std::max(da, db);
  }
  return out;
}

// `type` of a and b broadcast to their common shape.
void add_broadcasting(NodeContext& n, OpType type, ir::TensorId a, ir::TensorId b) {
  const ir::Graph& g = n.import().graph();
  const ir::Tensor& ta = g.tensor(a);
  const ir::Tensor& tb = g.tensor(b);
  std::string conflict;
  const std::optional<ir::Shape> out = broadcast_shape(ta.shape, tb.shape, &conflict);
  if (!out)
    n.fail("inputs " + ir::shape_text(ta.dtype, ta.shape) + " and " +
           ir::shape_text(tb.dtype, tb.shape) + " do not broadcast (" + conflict + ")");
  n.set_output(0, n.add(type, {broadcast_to(n, a, *out, "a"), broadcast_to(n, b, *out, "b")}, {}));
}

void translate_broadcasting(NodeContext& n, OpType type) {
  n.allow_attributes({});
  add_broadcasting(n, type, n.input(0), n.input(1));
}

// The single value of a FLOAT constant (a Constant node's output, not an initializer, which
// is a parameter), or nullopt when input i is not one.
std::optional<double> float_scalar(NodeContext& n, size_t i) {
  const onnx::TensorProto* t = n.import().constant(n.node().input(static_cast<int>(i)));
  if (!t || t->data_type() != onnx::TensorProto::FLOAT) return std::nullopt;
  const std::vector<float> v = n.constant_floats(i);
  if (v.size() != 1) return std::nullopt;
  return decimal_value(v[0]);
}

// Expand: ONNX's bidirectional broadcast of input 0 against a static target shape (a 1 in
// the target keeps the input's dimension), as the IR's expand view.
void translate_expand(NodeContext& n) {
  n.allow_attributes({});
  const IntConstant* target = n.int_constant(1);
  if (!target) n.fail("input 1 (shape) must be an integer constant or a static shape computation");
  const ir::Shape in = n.input_tensor(0).shape;
  std::string conflict;
  const std::optional<ir::Shape> out = broadcast_shape(in, target->values, &conflict);
  if (!out)
    n.fail("input " + ir::shape_text(n.input_tensor(0).dtype, in) + " does not broadcast to " +
           ir::ints_text(target->values) + " (" + conflict + ")");
  n.set_output(0, broadcast_to(n, n.input(0), *out, "input"));
}

// Where(condition, X, Y) with a constant condition choosing between a tensor and a FLOAT
// constant of one value at or below -1e30 (masked_fill(~causal, -inf), or finfo.min as
// Hugging Face writes it): that is the tensor plus an additive mask, 0 where the tensor is
// chosen and -inf elsewhere. The two agree exactly wherever the result is used by a softmax
// (exp of either is 0); simplify recognises a causal one as softmax's causal=1. Integer
// constants fold.
void translate_where(NodeContext& n) {
  if (fold_integer_where(n)) return;
  n.allow_attributes({});
  const IntConstant* c = n.int_constant(0);
  if (!c) n.fail("input 0 (condition) must be a constant; a computed condition is not supported");
  const std::optional<double> fx = float_scalar(n, 1), fy = float_scalar(n, 2);
  if (fx.has_value() == fy.has_value())
    n.fail(
        "exactly one of X and Y must be a FLOAT constant of one value (a mask fill) and the "
        "other a tensor");
  const size_t fill = fx ? 1 : 2;
  if (!(*(fx ? fx : fy) <= -1e30))
    n.fail("fills with " + std::to_string(*(fx ? fx : fy)) +
           "; only a mask filling with -inf (or at most -1e30) is supported, as the additive "
           "mask of a softmax");
  std::vector<float> mask(c->values.size());
  for (size_t i = 0; i < mask.size(); ++i)
    mask[i] = (c->values[i] != 0) == (fill == 1) ? -std::numeric_limits<float>::infinity() : 0.0f;
  ir::Graph& g = n.import().graph();
  const ir::Shape dims = c->dims.empty() ? ir::Shape{1} : c->dims;
  const ir::TensorId m =
      g.add_parameter(g.unique_name(n.name() + "/mask"), ir::TensorRole::Scratch, ir::DType::F32,
                      dims, std::make_shared<const ir::HostArray>(std::move(mask)), true);
  add_broadcasting(n, OpType::Add, n.input(fill == 1 ? 2 : 1), m);
}

void translate_add(NodeContext& n) {
  if (!fold_integer_arithmetic(n, '+') && !scale_by_float_constant(n, '+'))
    translate_broadcasting(n, OpType::Add);
}

void translate_mul(NodeContext& n) {
  if (!fold_integer_arithmetic(n, '*') && !scale_by_float_constant(n, '*'))
    translate_broadcasting(n, OpType::Mul);
}

// A BOOL constant input (Dropout's training_mode), false when absent.
bool constant_bool(NodeContext& n, size_t i) {
  if (!n.has_input(i)) return false;
  const std::string& value = n.node().input(static_cast<int>(i));
  const onnx::TensorProto* t = n.import().constant(value);
  if (!t || t->data_type() != onnx::TensorProto::BOOL)
    n.fail("input '" + value + "' (training_mode) must be a constant BOOL");
  if (!t->raw_data().empty()) return t->raw_data()[0] != 0;
  if (t->int32_data_size() > 0) return t->int32_data(0) != 0;
  n.fail("input '" + value + "' (training_mode) holds no value");
}

// Dropout in training mode: x * mask, the mask drawn on the PPU (ops/dropout.h); in inference
// mode (training_mode absent or false) the identity, as ONNX defines it. Dropout of a constant
// of ones is stochastic depth's per-sample mask.
void translate_dropout(NodeContext& n) {
  n.allow_attributes({"seed"});
  if (n.has_attr("seed"))
    n.fail_attr("seed", "is not supported: the masks come from the compiler's --seed");
  n.expect_unused_output(1, "the boolean mask is not an IR tensor (the step dumps the f32 mask)");
  if (!constant_bool(n, 2)) {
    n.set_output(0, n.input(0));
    return;
  }
  double ratio = 0.5;
  if (n.has_input(1)) {
    const std::vector<float> r = n.constant_floats(1);
    if (r.size() != 1) n.fail("input 1 (ratio) must be a scalar");
    if (!(r[0] >= 0.0f && r[0] < 1.0f))
      n.fail("ratio " + std::to_string(r[0]) + " is outside [0, 1)");
    ratio = decimal_value(r[0]);
  }
  // Dropout of a constant of ones is the mask itself: stochastic depth as
  // scripts/export_onnx.py exports it, x * dropout(ones([N,1,1,1]), p).
  if (const onnx::TensorProto* ones = n.import().constant(n.node().input(0))) {
    for (float v : n.constant_floats(0))
      if (v != 1.0f)
        n.fail(
            "input 0 is a constant that is not all ones; on a constant only dropout of ones "
            "(a stochastic-depth mask) is supported");
    // (Built in one expression: assigning {1} to an empty vector trips GCC 12's
    // -Wfree-nonheap-object false positive at -O3.)
    const ir::Shape shape =
        ones->dims().empty() ? ir::Shape{1} : ir::Shape(ones->dims().begin(), ones->dims().end());
    n.set_output(
        0, ir::add_dropout_mask(n.import().graph(), n.name(), shape, ratio, n.import().seed()));
    return;
  }
  n.set_output(0,
               ir::add_dropout(n.import().graph(), n.name(), n.input(0), ratio, n.import().seed()));
}

void translate_identity(NodeContext& n) {
  n.allow_attributes({});
  // Identity of an initializer was resolved with the initializers (initializers.h); one of
  // a Constant output is that constant again.
  if (n.has_input(0) && n.has_output(0)) {
    if (const onnx::TensorProto* c = n.import().constant(n.node().input(0))) {
      if (!n.import().constant(n.node().output(0))) n.import().add_constant(n.node().output(0), c);
      return;
    }
  }
  n.set_output(0, n.input(0));
}

// The value becomes a constant of the import; only constant inputs (shapes) may read it.
void translate_constant(NodeContext& n) {
  n.allow_attributes({"value"});
  const onnx::TensorProto* value = n.attr_tensor("value");
  if (!value) n.fail_attr("value", "is required");
  if (n.has_output(0)) n.import().add_constant(n.node().output(0), value);
}

// Flatten to [d0*...*d(axis-1), rest]: the IR's reshape with one -1.
void translate_flatten(NodeContext& n) {
  n.allow_attributes({"axis"});
  const ir::Tensor& x = n.input_tensor(0);
  const auto rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank)
    n.fail_attr("axis", "= " + std::to_string(n.attr_int("axis", 1)) + " is out of range for " +
                            ir::shape_text(x.dtype, x.shape));
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= x.shape[static_cast<size_t>(d)];
  n.set_output(
      0, n.add(OpType::Reshape, {n.input(0)}, Attrs{{"shape", std::vector<int64_t>{outer, -1}}}));
}

// Reshape of an integer constant (a static shape reshaped, as `expand(n, -1, -1)` exports):
// folded, the same values with the new dims (0 copies a dimension, one -1 is inferred).
void fold_integer_reshape(NodeContext& n, const IntConstant& c, std::vector<int64_t> shape) {
  int64_t known = 1;
  size_t inferred = shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && i < c.dims.size()) shape[i] = c.dims[i];
    if (shape[i] == -1 && inferred == shape.size()) {
      inferred = i;
      continue;
    }
    if (shape[i] < 1)
      n.fail("shape " + ir::ints_text(shape) + " is not a valid target for an integer constant");
    known *= shape[i];
  }
  const auto size = static_cast<int64_t>(c.values.size());
  if (inferred != shape.size() && known > 0 && size % known == 0) shape[inferred] = size / known;
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  if (total != size)
    n.fail("reshapes an integer constant of " + std::to_string(size) + " values to " +
           ir::ints_text(shape));
  n.set_int_output(0, IntConstant{shape, c.values});
}

void translate_reshape(NodeContext& n) {
  n.allow_attributes({"allowzero"});
  std::vector<int64_t> shape = n.constant_ints(1);
  if (const IntConstant* c = n.int_constant(0)) {
    fold_integer_reshape(n, *c, shape);
    return;
  }
  const ir::Tensor& x = n.input_tensor(0);
  const bool allow_zero = n.attr_int("allowzero", 0) != 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 0) continue;
    if (allow_zero)
      n.fail_attr("allowzero", "= 1 with a 0 in the shape " + ir::ints_text(shape) +
                                   " is not supported (empty tensors)");
    // ONNX: a 0 copies the input's dimension at that position.
    if (i >= x.shape.size())
      n.fail("shape " + ir::ints_text(shape) + " copies dimension " + std::to_string(i) + " of " +
             ir::shape_text(x.dtype, x.shape) + ", which has none");
    shape[i] = x.shape[i];
  }
  n.set_output(0, reshape_of(n, n.input(0), shape, ""));
}

// Concat of tensors: the IR's concat, which pass place-concat turns into producers writing
// side by side (DenseNet, Inception, SqueezeNet).
void translate_concat(NodeContext& n) {
  n.allow_attributes({"axis"});
  if (!n.has_attr("axis")) n.fail_attr("axis", "is required");
  if (fold_integer_concat(n)) return;  // a static shape being assembled
  std::vector<ir::TensorId> parts;
  for (int i = 0; i < n.node().input_size(); ++i)
    parts.push_back(n.input(static_cast<size_t>(i)));
  if (parts.empty()) n.fail("has no inputs");
  n.set_output(0, n.add(OpType::Concat, parts, Attrs{{"axis", n.attr_int("axis", 0)}}));
}

// Pad with constant zeros. PyTorch 1.13 exports AvgPool2d as Pad(pads all 0) then
// AveragePool: that Pad is the identity. A zero Pad of H and W whose every reader is an
// AveragePool or a Conv (Inception-v3's avg_pool2d(3, 1, padding=1) exports as Pad then
// AveragePool) folds into them: each adds the pads to its own, zeros being what a Conv pads
// with and what an average pool that counts its padding adds (ImportContext::folded_pads).
// Any other reader (a max pool pads with -inf) is an error naming it.
void translate_pad(NodeContext& n) {
  n.allow_attributes({"mode"});
  const std::string mode = n.attr_string("mode", "constant");
  if (mode != "constant") n.fail_attr("mode", "= '" + mode + "' is not supported (only constant)");
  if (n.has_input(3)) n.fail("input 3 (axes) is not supported");
  if (n.has_input(2)) {
    const std::vector<float> value = n.constant_floats(2);
    if (value.size() != 1 || value[0] != 0.0f)
      n.fail("input 2 (constant_value) must be the scalar 0");
  }
  const ir::Tensor& x = n.input_tensor(0);
  const std::vector<int64_t> pads = n.constant_ints(1);
  if (pads.size() != 2 * x.shape.size())
    n.fail("input 1 (pads) has " + std::to_string(pads.size()) + " entries, " +
           ir::shape_text(x.dtype, x.shape) + " needs " + std::to_string(2 * x.shape.size()));
  bool zero = true;
  for (int64_t p : pads)
    zero = zero && p == 0;
  if (zero) {
    n.set_output(0, n.input(0));
    return;
  }
  const size_t rank = x.shape.size();
  bool spatial = rank == 4 && pads[0] == 0 && pads[1] == 0 && pads[4] == 0 && pads[5] == 0;
  for (int64_t p : pads)
    spatial = spatial && p >= 0;
  if (!spatial)
    n.fail("pads " + ir::ints_text(pads) +
           " are not supported: only non-negative padding of H and W of an [N,C,H,W] tensor, "
           "read by AveragePool or Conv, which take it as their own padding");
  const std::string& out = n.node().output(0);
  for (const onnx::NodeProto& reader : n.import().onnx_graph().node())
    for (int i = 0; i < reader.input_size(); ++i)
      if (reader.input(i) == out &&
          (i != 0 || (reader.op_type() != "AveragePool" && reader.op_type() != "Conv")))
        n.fail("pads " + ir::ints_text(pads) + " are read by node '" + reader.name() + "' (" +
               reader.op_type() +
               "); a non-zero Pad folds only into AveragePool and Conv (their input 0)");
  for (const onnx::ValueInfoProto& o : n.import().onnx_graph().output())
    if (o.name() == out) n.fail("its padded output is a graph output; it folds only into a reader");
  n.import().set_folded_pads(out, {pads[2], pads[3], pads[6], pads[7]});
  n.set_output(0, n.input(0));
}

}  // namespace

bool scale_by_float_constant(NodeContext& n, char op) {
  if (n.node().input_size() != 2) return false;
  const std::optional<double> a = float_scalar(n, 0), b = float_scalar(n, 1);
  if (a.has_value() == b.has_value()) return false;  // no constant, or two: not a scale
  n.allow_attributes({});
  const size_t x = a ? 1 : 0;
  const double c = a ? *a : *b;
  double alpha = 1.0, beta = 0.0;
  switch (op) {
    case '+':
      beta = c;
      break;
    case '-':
      alpha = a ? -1.0 : 1.0;
      beta = a ? c : -c;
      break;
    case '*':
      alpha = c;
      break;
    default:
      if (a)
        n.fail("divides the constant " + n.node().input(0) +
               " by a tensor; only a tensor divided by a constant is supported");
      if (c == 0.0) n.fail("divides by the constant 0");
      alpha = 1.0 / c;
  }
  n.set_output(0, n.add(OpType::Scale, {n.input(x)}, Attrs{{"alpha", alpha}, {"beta", beta}}));
  return true;
}

ir::TensorId reshape_of(NodeContext& n, ir::TensorId t, const ir::Shape& shape,
                        const std::string& suffix) {
  ir::Graph& g = n.import().graph();
  const ir::Tensor& x = g.tensor(t);
  // The shape with its -1 resolved, for the view test (reshape's own inference reports a
  // shape that does not fit).
  ir::Shape resolved = shape;
  int64_t known = 1;
  for (int64_t d : shape)
    known *= d == -1 ? 1 : d;
  for (int64_t& d : resolved)
    if (d == -1 && known > 0) d = x.numel() / known;
  if (!ir::view_strides(x.shape, x.strides, resolved))
    t = g.add(OpType::Copy, g.unique_name(n.name() + "/dense" + suffix), ir::OpCategory::Forward,
              {t});
  if (suffix.empty()) return n.add(OpType::Reshape, {t}, Attrs{{"shape", shape}});
  return g.add(OpType::Reshape, g.unique_name(n.name() + "/reshape" + suffix),
               ir::OpCategory::Forward, {t}, Attrs{{"shape", shape}});
}

void add_tensor_ops(OnnxOpRegistry& r) {
  r.add("Relu", {translate_relu, {}, {}});
  r.add("Add", {translate_add, {}, {}});
  r.add("Mul", {translate_mul, {}, {}});
  r.add("Expand", {translate_expand, {1}, {}});
  r.add("Where", {translate_where, {0}, {}});
  r.add("Dropout", {translate_dropout, {1, 2}, {}});
  r.add("Identity", {translate_identity, {}, {}});
  r.add("Constant", {translate_constant, {}, {}});
  r.add("Flatten", {translate_flatten, {}, {}});
  r.add("Reshape", {translate_reshape, {1}, {}});
  r.add("Concat", {translate_concat, {}, {}});
  r.add("Pad", {translate_pad, {1, 2}, {}});
}

}  // namespace s2::onnx_import
