// layer_norm and layer_norm_bwd: forward values against PyTorch's formula evaluated in double
// (ranks 2 to 4, and a transposed view normalised through its strides as ConvNeXt does),
// shape-inference errors, the backward op, and gradient checks for x, gamma and beta.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "gradcheck.h"
#include "isa/common/errors.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

std::vector<float> wave(size_t n, float scale, float shift) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(scale * std::sin(0.7f * static_cast<float>(i) + 0.3f) + shift);
  return v;
}

// Checks y, saved mean and invstd of layer_norm over x's last dimension, x given densely.
void expect_layer_norm(const std::vector<float>& x, size_t rows, size_t d,
                       const std::vector<float>& gamma, const std::vector<float>& beta, double eps,
                       const std::vector<float>& y, const std::vector<float>& mean,
                       const std::vector<float>& invstd) {
  ASSERT_EQ(y.size(), rows * d);
  ASSERT_EQ(mean.size(), rows);
  for (size_t r = 0; r < rows; ++r) {
    double sum = 0, sq = 0;
    for (size_t k = 0; k < d; ++k)
      sum += double{x[r * d + k]};
    const double m = sum / static_cast<double>(d);
    for (size_t k = 0; k < d; ++k)
      sq += (double{x[r * d + k]} - m) * (double{x[r * d + k]} - m);
    const double is = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);
    EXPECT_NEAR(mean[r], m, 1e-6) << "row " << r;
    EXPECT_NEAR(invstd[r], is, 1e-6 * is) << "row " << r;
    for (size_t k = 0; k < d; ++k)
      EXPECT_NEAR(y[r * d + k],
                  (double{x[r * d + k]} - m) * is * double{gamma[k]} + double{beta[k]}, 1e-5)
          << "row " << r << " column " << k;
  }
}

void check_forward(const Shape& shape, double eps) {
  Graph g;
  const size_t n = static_cast<size_t>(shape_numel(shape));
  const size_t d = static_cast<size_t>(shape.back());
  const TensorId x = param(g, "x", shape, wave(n, 1.5f, 0.2f));
  const TensorId gamma = param(g, "gamma", {shape.back()}, wave(d, 0.5f, 1.0f), TensorRole::Weight);
  const TensorId beta = param(g, "beta", {shape.back()}, wave(d, 0.3f, -0.1f), TensorRole::Weight);
  const std::vector<TensorId> out =
      g.add_op(OpType::LayerNorm, "ln", OpCategory::Forward, {x, gamma, beta}, Attrs{{"eps", eps}});
  Shape rows_shape(shape.begin(), shape.end() - 1);
  EXPECT_EQ(g.tensor(out[0]).shape, shape);
  EXPECT_EQ(g.tensor(out[1]).shape, rows_shape);
  EXPECT_EQ(g.tensor(out[2]).shape, rows_shape);
  Interpreter it(g);
  it.run();
  expect_layer_norm(it.value(x).f32(), n / d, d, it.value(gamma).f32(), it.value(beta).f32(), eps,
                    it.value(out[0]).f32(), it.value(out[1]).f32(), it.value(out[2]).f32());
}

TEST(OpsLayerNorm, Forward2d) {
  check_forward({5, 7}, 1e-5);
}
TEST(OpsLayerNorm, Forward3d) {
  check_forward({2, 3, 8}, 1e-6);
}
TEST(OpsLayerNorm, Forward4d) {
  check_forward({2, 3, 2, 6}, 1e-3);
}

// ConvNeXt's LayerNorm2d: the channels of an [N,C,H,W] map normalised through the [N,H,W,C]
// transposed view, with no copy: the same bits as layer_norm of a dense permuted copy.
TEST(OpsLayerNorm, TransposedViewIsNormalisedThroughItsStrides) {
  Graph g;
  const Shape nchw{2, 4, 3, 2};
  const TensorId x = param(g, "x", nchw, wave(48, 1.2f, 0.4f));
  const TensorId gamma = param(g, "gamma", {4}, wave(4, 0.5f, 1.0f), TensorRole::Weight);
  const TensorId beta = param(g, "beta", {4}, wave(4, 0.3f, -0.1f), TensorRole::Weight);
  const TensorId nhwc = g.add(OpType::Transpose, "t", OpCategory::Forward, {x},
                              Attrs{{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
  EXPECT_EQ(g.tensor(nhwc).data, g.tensor(x).data);  // a view
  const TensorId dense = g.add(OpType::Copy, "dense", OpCategory::Forward, {nhwc});
  const TensorId a =
      g.add_op(OpType::LayerNorm, "ln_view", OpCategory::Forward, {nhwc, gamma, beta})[0];
  const TensorId b =
      g.add_op(OpType::LayerNorm, "ln_dense", OpCategory::Forward, {dense, gamma, beta})[0];
  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(a).f32(), it.value(b).f32());
  // And the values are the normalised channels of each pixel.
  const std::vector<float> xs = it.value(x).f32(), y = it.value(a).f32();
  const std::vector<float> gm = it.value(gamma).f32(), bt = it.value(beta).f32();
  std::vector<float> permuted;
  for (size_t n = 0; n < 2; ++n)
    for (size_t p = 0; p < 6; ++p)
      for (size_t c = 0; c < 4; ++c)
        permuted.push_back(xs[(n * 4 + c) * 6 + p]);
  const std::vector<TensorId> outs = g.op(g.find_op("ln_view")).outputs;
  expect_layer_norm(permuted, 12, 4, gm, bt, 1e-5, y, it.value(outs[1]).f32(),
                    it.value(outs[2]).f32());
}

TEST(OpsLayerNorm, SchemaAndErrors) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3, 4}, wave(24, 1, 0));
  const TensorId x1 = param(g, "x1", {4}, wave(4, 1, 0));
  const TensorId x5 = param(g, "x5", {1, 2, 1, 2, 4}, wave(16, 1, 0));
  const TensorId c3 = param(g, "c3", {3}, wave(3, 1, 0));
  const TensorId c4 = param(g, "c4", {4}, wave(4, 1, 0));
  EXPECT_EQ(op_schema(OpType::LayerNorm).fusion, FusionClass::Ppu);
  EXPECT_EQ(op_schema(OpType::LayerNormBwd).fusion, FusionClass::Ppu);
  auto ln = [&](std::vector<TensorId> in, Attrs attrs = {}) {
    return user_error([&] { g.add_op(OpType::LayerNorm, "ln", OpCategory::Forward, in, attrs); });
  };
  EXPECT_EQ(ln({x1, c4, c4}),
            "shape inference: op 'ln' (layer_norm): input 'x' f32[4] must have rank 2 to 4 (rows "
            "of its last dimension; the ISA's descriptors hold up to 4 dimensions)");
  EXPECT_EQ(ln({x5, c4, c4}),
            "shape inference: op 'ln' (layer_norm): input 'x' f32[1,2,1,2,4] must have rank 2 to "
            "4 (rows of its last dimension; the ISA's descriptors hold up to 4 dimensions)");
  EXPECT_EQ(ln({x, c3, c4}),
            "shape inference: op 'ln' (layer_norm): input 'gamma' is f32[3], expected f32[4]");
  EXPECT_EQ(ln({x, c4, c3}),
            "shape inference: op 'ln' (layer_norm): input 'beta' is f32[3], expected f32[4]");
  EXPECT_EQ(ln({x, c4, c4}, Attrs{{"eps", -1.0}}),
            "shape inference: op 'ln' (layer_norm): eps=-1.000000 must be >= 0");
  const TensorId stat = param(g, "stat", {2, 3}, wave(6, 1, 1));
  EXPECT_EQ(
      user_error([&] {
        g.add_op(OpType::LayerNormBwd, "lnb", OpCategory::ActivationGrad, {x, x, c4, c4, stat});
      }),
      "shape inference: op 'lnb' (layer_norm_bwd): input 'saved_mean' is f32[4], expected "
      "f32[2,3]");
}

// One layer_norm_bwd op of category ActivationGrad reading the saved row statistics.
TEST(OpsLayerNorm, BackwardOp) {
  Graph g;
  const TensorId x = param(g, "x", {3, 4}, wave(12, 1, 0));
  const TensorId gamma = param(g, "gamma", {4}, wave(4, 1, 1), TensorRole::Weight);
  const TensorId beta = param(g, "beta", {4}, wave(4, 1, 0), TensorRole::Weight);
  const std::vector<TensorId> out =
      g.add_op(OpType::LayerNorm, "ln", OpCategory::Forward, {x, gamma, beta});
  const TensorId dy = param(g, "dy", {3, 4}, wave(12, 1, 0), TensorRole::Gradient);
  BackwardContext ctx(g, g.op(g.find_op("ln")), {dy, {}, {}}, {true, false, true});
  op_schema(OpType::LayerNorm).backward(ctx);
  ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
  EXPECT_TRUE(ctx.input_grads()[1].empty());
  ASSERT_EQ(ctx.input_grads()[2].size(), 1u);
  const Op& bwd = g.op(g.tensor(ctx.input_grads()[0][0]).producer);
  EXPECT_EQ(bwd.name, "ln.bwd");
  EXPECT_EQ(bwd.type, OpType::LayerNormBwd);
  EXPECT_EQ(bwd.category, OpCategory::ActivationGrad);
  EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{dy, x, gamma, out[1], out[2]}));
}

testing::GradCheckSpec ln_spec(const Shape& shape, uint32_t seed) {
  testing::GradCheckSpec spec;
  spec.type = OpType::LayerNorm;
  spec.seed = seed;
  testing::GradInput x, gamma, beta;
  x.shape = shape;
  x.lo = -2.0f;
  x.hi = 2.0f;
  gamma.shape = beta.shape = {shape.back()};
  gamma.lo = 0.5f;
  gamma.hi = 1.5f;
  gamma.role = beta.role = TensorRole::Weight;
  spec.inputs = {x, gamma, beta};
  return spec;
}

TEST(OpsLayerNorm, Grad2d) {
  const testing::GradCheckResult r = testing::grad_check(ln_spec({4, 6}, 3));
  EXPECT_TRUE(r.ok) << r.report;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_GE(r.error[i], 0.0) << "input " << i << " not checked";
}

TEST(OpsLayerNorm, Grad4dShortRows) {
  // Rows of two values: xhat is +-1 there, the corner where dx depends most on the statistics.
  const testing::GradCheckResult r = testing::grad_check(ln_spec({2, 3, 2, 2}, 5));
  EXPECT_TRUE(r.ok) << r.report;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_GE(r.error[i], 0.0) << "input " << i << " not checked";
}

TEST(OpsLayerNorm, Grad3d) {
  const testing::GradCheckResult r = testing::grad_check(ln_spec({2, 5, 7}, 7));
  EXPECT_TRUE(r.ok) << r.report;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_GE(r.error[i], 0.0) << "input " << i << " not checked";
}

}  // namespace
}  // namespace s2::ir
