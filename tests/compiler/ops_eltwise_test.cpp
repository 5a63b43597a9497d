// Element-wise ops (relu, relu_bwd, add, mul, scale): forward values, shape-inference errors
// and gradient checks of their backward rules.

#include <gtest/gtest.h>

#include <memory>
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

const std::vector<float> kA = {-1.5f, 0.0f, 2.0f, 0.25f, -0.0f, 3.0f};
const std::vector<float> kB = {0.5f, -2.0f, 4.0f, 1.0f, 7.0f, -0.5f};

TEST(OpsEltwise, ForwardValues) {
  Graph g;
  const TensorId a = param(g, "a", {2, 3}, kA);
  const TensorId b = param(g, "b", {2, 3}, kB);
  const TensorId relu = g.add(OpType::Relu, "relu", OpCategory::Forward, {a});
  const TensorId add = g.add(OpType::Add, "add", OpCategory::Forward, {a, b});
  const TensorId mul = g.add(OpType::Mul, "mul", OpCategory::Forward, {a, b});
  const TensorId scale = g.add(OpType::Scale, "scale", OpCategory::Forward, {a},
                               Attrs{{"alpha", -2.0}, {"beta", 0.5}});
  const TensorId dflt = g.add(OpType::Scale, "identity", OpCategory::Forward, {a});
  const TensorId mask = g.add(OpType::ReluBwd, "mask", OpCategory::ActivationGrad, {b, relu});
  Interpreter it(g);
  it.run();
  std::vector<float> want_relu, want_add, want_mul, want_scale, want_mask;
  for (size_t i = 0; i < kA.size(); ++i) {
    want_relu.push_back(kA[i] > 0 ? kA[i] : 0.0f);
    want_add.push_back(kA[i] + kB[i]);
    want_mul.push_back(kA[i] * kB[i]);
    want_scale.push_back(-2.0f * kA[i] + 0.5f);
    want_mask.push_back(kA[i] > 0 ? kB[i] : 0.0f);
  }
  EXPECT_EQ(it.value(relu).f32(), want_relu);
  EXPECT_EQ(it.value(add).f32(), want_add);
  EXPECT_EQ(it.value(mul).f32(), want_mul);
  EXPECT_EQ(it.value(scale).f32(), want_scale);
  EXPECT_EQ(it.value(dflt).f32(), kA);  // alpha 1, beta 0 by default
  EXPECT_EQ(it.value(mask).f32(), want_mask);
  EXPECT_EQ(g.op(g.find_op("scale")).attrs.text(), "alpha=-2.0 beta=0.5");
  EXPECT_EQ(g.op(g.find_op("identity")).attrs.text(), "alpha=1.0 beta=0.0");
  EXPECT_EQ(g.tensor(add).shape, (Shape{2, 3}));
  EXPECT_EQ(op_schema(OpType::Relu).fusion, FusionClass::Ppu);
}

TEST(OpsEltwise, ReadsStridedInputs) {
  Graph g;
  const TensorId a = param(g, "a", {2, 3}, kA);
  const TensorId b = param(g, "b", {3, 2}, kB);
  const TensorId bt = g.add(OpType::Transpose, "bt", OpCategory::Forward, {b},
                            Attrs{{"perm", std::vector<int64_t>{1, 0}}});
  const TensorId y = g.add(OpType::Add, "add", OpCategory::Forward, {a, bt});
  Interpreter it(g);
  it.run();
  // bt[i][j] = b[j][i] = kB[j*2+i]
  std::vector<float> want;
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 3; ++j)
      want.push_back(kA[i * 3 + j] + kB[j * 2 + i]);
  EXPECT_EQ(it.value(y).f32(), want);
}

TEST(OpsEltwise, ShapeErrors) {
  Graph g;
  const TensorId a = param(g, "a", {2, 3}, kA);
  const TensorId b = param(g, "b", {3, 2}, kB);
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {2, 3});
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Add, "sum", OpCategory::Forward, {a, b});
            }),
            "shape inference: op 'sum' (add): input 'b' f32[3,2] does not match input 'a' "
            "f32[2,3] (element-wise ops do not broadcast)");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Mul, "prod", OpCategory::Forward, {a, labels});
            }),
            "shape inference: op 'prod' (mul): input 'b' i32[2,3] must have a float element type "
            "(f32, bf16 or f16)");
  EXPECT_EQ(user_error([&] { g.add(OpType::Relu, "r", OpCategory::Forward, {labels}); }),
            "shape inference: op 'r' (relu): input 'x' i32[2,3] must have a float element type "
            "(f32, bf16 or f16)");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::ReluBwd, "rb", OpCategory::ActivationGrad, {a, b});
            }),
            "shape inference: op 'rb' (relu_bwd): input 'y' f32[3,2] does not match input 'dy' "
            "f32[2,3] (element-wise ops do not broadcast)");
}

// Values kept away from relu's kink, where finite differences are meaningless.
std::vector<float> away_from_zero(size_t n) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back((i % 2 ? -1.0f : 1.0f) * (0.2f + 0.1f * static_cast<float>(i % 7)));
  return v;
}

TEST(OpsEltwise, GradRelu) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Relu;
  testing::GradInput x;
  x.shape = {2, 3, 4};
  x.values = away_from_zero(24);
  spec.inputs = {x};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(OpsEltwise, GradAdd) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Add;
  testing::GradInput x;
  x.shape = {3, 5};
  spec.inputs = {x, x};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(OpsEltwise, GradMul) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Mul;
  testing::GradInput x;
  x.shape = {2, 2, 3};
  spec.inputs = {x, x};
  spec.seed = 7;
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(OpsEltwise, GradScale) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Scale;
  spec.attrs = Attrs{{"alpha", -1.75}, {"beta", 3.0}};
  testing::GradInput x;
  x.shape = {4, 3};
  spec.inputs = {x};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

// The backward rules emit only what is needed, with the documented ops and categories.
TEST(OpsEltwise, BackwardOps) {
  Graph g;
  const TensorId a = param(g, "a", {2, 3}, kA);
  const TensorId w =
      g.add_parameter("w", TensorRole::Weight, DType::F32, {2, 3}, std::make_shared<HostArray>(kB));
  g.add(OpType::Mul, "m", OpCategory::Forward, {a, w});
  const TensorId dy = param(g, "dy", {2, 3}, kB);
  const OpSchema& s = op_schema(OpType::Mul);
  BackwardContext ctx(g, g.op(g.find_op("m")), {dy}, {false, true});
  s.backward(ctx);
  ASSERT_TRUE(ctx.input_grads()[0].empty());
  ASSERT_EQ(ctx.input_grads()[1].size(), 1u);
  const Op& grad = g.op(g.tensor(ctx.input_grads()[1][0]).producer);
  EXPECT_EQ(grad.name, "m.grad_b");
  EXPECT_EQ(grad.type, OpType::Mul);
  EXPECT_EQ(grad.category, OpCategory::WeightGrad);
  EXPECT_EQ(grad.inputs, (std::vector<TensorId>{dy, a}));
}

}  // namespace
}  // namespace s2::ir
