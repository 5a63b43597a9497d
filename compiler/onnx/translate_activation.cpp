// The activation functions: Clip (as relu or relu6), Sigmoid, HardSigmoid, HardSwish, and the
// multi-node idioms patterns.h turns into Silu and Gelu (also ONNX's own Gelu of opset 20).
// Each becomes the IR's activation op (ops/activation.cpp), or relu.

#include <cmath>
#include <limits>

#include "compiler/onnx/patterns.h"
#include "compiler/onnx/translators.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

void activation(NodeContext& n, const char* act) {
  n.set_output(0, n.add(OpType::Activation, {n.input(0)}, Attrs{{"act", std::string(act)}}));
}

// A scalar bound of Clip: input i (opset 11+) or attribute `attr` (opset 6-10).
float clip_bound(NodeContext& n, size_t i, const char* attr, float fallback) {
  if (n.has_attr(attr)) return n.attr_float(attr, fallback);
  if (!n.has_input(i)) return fallback;
  const std::vector<float> v = n.constant_floats(i);
  if (v.size() != 1)
    n.fail("input " + std::to_string(i) + " (" + attr + ") must be a scalar, it has " +
           std::to_string(v.size()) + " elements");
  return v[0];
}

// Clip(x, 0, 6) is ReLU6 and Clip(x, 0) ReLU; other bounds have no op.
void translate_clip(NodeContext& n) {
  n.allow_attributes({"min", "max"});
  const float inf = std::numeric_limits<float>::infinity();
  const float lo = clip_bound(n, 1, "min", -inf);
  const float hi = clip_bound(n, 2, "max", inf);
  if (lo == 0.0f && hi == 6.0f) return activation(n, "relu6");
  if (lo == 0.0f && hi == inf) {
    n.set_output(0, n.add(OpType::Relu, {n.input(0)}, {}));
    return;
  }
  n.fail("bounds [" + std::to_string(lo) + ", " + std::to_string(hi) +
         "] are not supported: the PPU clips as relu6 [0, 6] or relu [0, inf)");
}

void translate_sigmoid(NodeContext& n) {
  n.allow_attributes({});
  activation(n, "sigmoid");
}

// HardSigmoid is max(0, min(1, alpha * x + beta)); PyTorch's has alpha 1/6, beta 0.5.
void translate_hard_sigmoid(NodeContext& n) {
  n.allow_attributes({"alpha", "beta"});
  const float alpha = n.attr_float("alpha", 0.2f), beta = n.attr_float("beta", 0.5f);
  if (std::fabs(alpha - 1.0f / 6.0f) > 1e-6f)
    n.fail_attr("alpha", "= " + std::to_string(alpha) +
                             " is not supported: the PPU's hardsigmoid has alpha 1/6 (PyTorch's)");
  if (beta != 0.5f)
    n.fail_attr("beta", "= " + std::to_string(beta) +
                            " is not supported: the PPU's hardsigmoid has beta 0.5 (PyTorch's)");
  activation(n, "hardsigmoid");
}

void translate_hard_swish(NodeContext& n) {
  n.allow_attributes({});
  activation(n, "hardswish");
}

void translate_silu(NodeContext& n) {
  n.allow_attributes({});
  activation(n, "silu");
}

void translate_gelu(NodeContext& n) {
  n.allow_attributes({"approximate"});
  const std::string approximate = n.attr_string("approximate", "none");
  if (approximate == "none") return activation(n, "gelu");
  if (approximate == "tanh") return activation(n, "gelu_tanh");
  n.fail_attr("approximate", "= \"" + approximate + "\" is not one of \"none\", \"tanh\"");
}

}  // namespace

void add_activation_ops(OnnxOpRegistry& r) {
  r.add("Clip", {translate_clip, {1, 2}, {}});
  r.add("Sigmoid", {translate_sigmoid, {}, {}});
  r.add("HardSigmoid", {translate_hard_sigmoid, {}, {}});
  r.add("HardSwish", {translate_hard_swish, {}, {}});
  r.add("Gelu", {translate_gelu, {}, {}});
}

void add_pattern_ops(OnnxOpRegistry& r) {
  r.add("Silu", {translate_silu, {}, {}});
  r.add("Gelu", {translate_gelu, {}, {}});
}

}  // namespace s2::onnx_import
