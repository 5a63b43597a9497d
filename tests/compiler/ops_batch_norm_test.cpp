// batch_norm (training mode) and batch_norm_bwd: forward values and running statistics against
// the PyTorch formulas evaluated in double, the in-place update of the running statistics,
// shape-inference errors, gradient checks for x, gamma and beta (4-D and 2-D inputs), and
// the epilogues bn_fwd and bn_bwd carry (act, gate) bit for bit against the separate ops.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
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

std::vector<float> wave(size_t n, float scale, float shift) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(scale * std::sin(0.7f * static_cast<float>(i) + 0.3f) + shift);
  return v;
}

struct BnGraph {
  Graph g;
  TensorId x, gamma, beta, rm, rv;
  std::vector<TensorId> out;
};

// x of `shape` ([N,C,H,W] or [N,C]) with channel-dependent offsets so the statistics differ.
void build(BnGraph* b, const Shape& shape, const Attrs& attrs) {
  const size_t c = static_cast<size_t>(shape[1]);
  b->x = param(b->g, "x", shape, wave(static_cast<size_t>(shape_numel(shape)), 1.5f, 0.2f));
  b->gamma = param(b->g, "gamma", {shape[1]}, wave(c, 0.5f, 1.0f), TensorRole::Weight);
  b->beta = param(b->g, "beta", {shape[1]}, wave(c, 0.3f, -0.1f), TensorRole::Weight);
  b->rm = param(b->g, "running_mean", {shape[1]}, wave(c, 0.1f, 0.0f), TensorRole::State);
  b->rv = param(b->g, "running_var", {shape[1]}, wave(c, 0.2f, 1.0f), TensorRole::State);
  b->out = b->g.add_op(OpType::BatchNorm, "bn", OpCategory::Forward,
                       {b->x, b->gamma, b->beta, b->rm, b->rv}, attrs);
}

void check_forward(const Shape& shape, double eps, double momentum) {
  BnGraph b;
  build(&b, shape, Attrs{{"eps", eps}, {"momentum", momentum}});
  Interpreter it(b.g);
  const std::vector<float> x = it.value(b.x).f32();
  const std::vector<float> gamma = it.value(b.gamma).f32();
  const std::vector<float> beta = it.value(b.beta).f32();
  const std::vector<float> rm = it.value(b.rm).f32();
  const std::vector<float> rv = it.value(b.rv).f32();
  it.run();
  const std::vector<float> y = it.value(b.out[0]).f32();
  const std::vector<float> saved_mean = it.value(b.out[1]).f32();
  const std::vector<float> saved_invstd = it.value(b.out[2]).f32();
  const std::vector<float> rm_out = it.value(b.out[3]).f32();
  const std::vector<float> rv_out = it.value(b.out[4]).f32();
  // The running statistics are the input tensors' data, read back through them.
  EXPECT_EQ(it.value(b.rm).f32(), rm_out);
  EXPECT_EQ(it.value(b.rv).f32(), rv_out);

  const size_t n = static_cast<size_t>(shape[0]), c = static_cast<size_t>(shape[1]);
  const size_t s = shape.size() == 4 ? static_cast<size_t>(shape[2] * shape[3]) : 1;
  const double count = static_cast<double>(n * s);
  for (size_t ch = 0; ch < c; ++ch) {
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 0; k < s; ++k)
        sum += static_cast<double>(x[(i * c + ch) * s + k]);
    const double mean = sum / count;
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 0; k < s; ++k) {
        const double d = static_cast<double>(x[(i * c + ch) * s + k]) - mean;
        sq += d * d;
      }
    const double var = sq / count;
    const double invstd = 1.0 / std::sqrt(var + eps);
    EXPECT_NEAR(saved_mean[ch], mean, 1e-6) << "channel " << ch;
    EXPECT_NEAR(saved_invstd[ch], invstd, 1e-5 * invstd) << "channel " << ch;
    EXPECT_NEAR(rm_out[ch], (1 - momentum) * double{rm[ch]} + momentum * mean, 1e-6);
    EXPECT_NEAR(rv_out[ch], (1 - momentum) * double{rv[ch]} + momentum * sq / (count - 1), 1e-6);
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 0; k < s; ++k) {
        const size_t at = (i * c + ch) * s + k;
        const double want = (double{x[at]} - mean) * invstd * double{gamma[ch]} + double{beta[ch]};
        EXPECT_NEAR(y[at], want, 1e-5) << "element " << at;
      }
  }
}

TEST(OpsBatchNorm, Forward4d) {
  check_forward({2, 3, 4, 5}, 1e-5, 0.1);
}
TEST(OpsBatchNorm, Forward2d) {
  check_forward({6, 4}, 1e-3, 0.25);
}

TEST(OpsBatchNorm, SchemaAndOutputs) {
  BnGraph b;
  build(&b, {2, 3, 2, 2}, {});
  const Op& op = b.g.op(b.g.find_op("bn"));
  EXPECT_EQ(op.attrs.text(), "act=\"none\" eps=1e-05 keep_pre=0 momentum=0.1");
  EXPECT_EQ(op_schema(OpType::BatchNorm).fusion, FusionClass::Ppu);
  EXPECT_EQ(op_schema(OpType::BatchNormBwd).fusion, FusionClass::Ppu);
  ASSERT_EQ(b.out.size(), 6u);
  EXPECT_FALSE(b.out[5].valid());  // pre: only with keep_pre=1
  EXPECT_EQ(b.g.tensor(b.out[0]).shape, (Shape{2, 3, 2, 2}));
  for (size_t i = 1; i < 5; ++i)
    EXPECT_EQ(b.g.tensor(b.out[i]).shape, (Shape{3}));
  // y and the saved statistics are new data; the running statistics update their inputs'.
  EXPECT_NE(b.g.tensor(b.out[0]).data, b.g.tensor(b.x).data);
  EXPECT_EQ(b.g.tensor(b.out[3]).data, b.g.tensor(b.rm).data);
  EXPECT_EQ(b.g.tensor(b.out[4]).data, b.g.tensor(b.rv).data);
  EXPECT_TRUE(b.g.writes_in_place(op));
  EXPECT_TRUE(b.g.has_side_effect(op));
}

TEST(OpsBatchNorm, RunningStatisticsAccumulateOverSteps) {
  BnGraph b;
  build(&b, {4, 2}, Attrs{{"momentum", 0.5}});
  Interpreter it(b.g);
  const std::vector<float> rm0 = it.value(b.rm).f32();
  it.run();
  const std::vector<float> mean = it.value(b.out[1]).f32();
  it.run();
  const std::vector<float> rm2 = it.value(b.rm).f32();
  for (size_t c = 0; c < 2; ++c) {
    const float once = 0.5f * rm0[c] + 0.5f * mean[c];
    EXPECT_FLOAT_EQ(rm2[c], 0.5f * once + 0.5f * mean[c]);
  }
}

TEST(OpsBatchNorm, ShapeErrors) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3, 4, 4}, wave(96, 1, 0));
  const TensorId x3 = param(g, "x3", {2, 3, 4}, wave(24, 1, 0));
  const TensorId one = param(g, "one", {1, 3}, wave(3, 1, 0));
  const TensorId c3 = param(g, "c3", {3}, wave(3, 1, 0));
  const TensorId c4 = param(g, "c4", {4}, wave(4, 1, 0));
  const TensorId c6 = param(g, "c6", {6}, wave(6, 1, 0));
  const TensorId strided = g.add(
      OpType::Slice, "strided", OpCategory::Forward, {c6},
      Attrs{
          {"axis", int64_t{0}}, {"start", int64_t{0}}, {"end", int64_t{6}}, {"step", int64_t{2}}});
  auto bn = [&](std::vector<TensorId> in) {
    return user_error([&] { g.add_op(OpType::BatchNorm, "bn", OpCategory::Forward, in); });
  };
  EXPECT_EQ(bn({x3, c3, c3, c3, c3}),
            "shape inference: op 'bn' (batch_norm): input 'x' f32[2,3,4] must have rank 2 "
            "([N,C]) or 4 ([N,C,H,W])");
  EXPECT_EQ(bn({x, c3, c4, c3, c3}),
            "shape inference: op 'bn' (batch_norm): input 'beta' is f32[4], expected f32[3]");
  EXPECT_EQ(bn({x, c3, c3, c3, c4}),
            "shape inference: op 'bn' (batch_norm): input 'running_var' is f32[4], expected "
            "f32[3]");
  EXPECT_EQ(bn({one, c3, c3, c3, c3}),
            "shape inference: op 'bn' (batch_norm): input 'x' f32[1,3] has 1 value per channel; "
            "training-mode batch norm needs more than one");
  EXPECT_EQ(bn({x, c3, c3, strided, c3}),
            "shape inference: op 'bn' (batch_norm): input 'running_mean' f32[3] is updated in "
            "place and must be a dense view");
  const TensorId dy = param(g, "dy", {2, 3, 4, 5}, wave(120, 1, 0));
  EXPECT_EQ(
      user_error([&] {
        g.add_op(OpType::BatchNormBwd, "bnb", OpCategory::ActivationGrad, {dy, x, c3, c3, c3});
      }),
      "shape inference: op 'bnb' (batch_norm_bwd): input 'dy' is f32[2,3,4,5], expected "
      "f32[2,3,4,4]");
  EXPECT_EQ(user_error([&] {
              g.add_op(OpType::BatchNormBwd, "bnb", OpCategory::ActivationGrad, {x, x, c3, c3, c4});
            }),
            "shape inference: op 'bnb' (batch_norm_bwd): input 'saved_invstd' is f32[4], "
            "expected f32[3]");
}

// One batch_norm_bwd op of category ActivationGrad, reading the saved statistics.
TEST(OpsBatchNorm, BackwardOp) {
  BnGraph b;
  build(&b, {2, 3, 2, 2}, {});
  const TensorId dy = param(b.g, "dy", {2, 3, 2, 2}, wave(24, 1, 0), TensorRole::Gradient);
  BackwardContext ctx(b.g, b.g.op(b.g.find_op("bn")), {dy, {}, {}, {}, {}},
                      {true, true, false, false, false});
  op_schema(OpType::BatchNorm).backward(ctx);
  ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
  ASSERT_EQ(ctx.input_grads()[1].size(), 1u);
  EXPECT_TRUE(ctx.input_grads()[2].empty());
  const Op& bwd = b.g.op(b.g.tensor(ctx.input_grads()[0][0]).producer);
  EXPECT_EQ(bwd.name, "bn.bwd");
  EXPECT_EQ(bwd.type, OpType::BatchNormBwd);
  EXPECT_EQ(bwd.category, OpCategory::ActivationGrad);
  EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{dy, b.x, b.gamma, b.out[1], b.out[2], TensorId()}));
  EXPECT_EQ(b.g.tensor(ctx.input_grads()[1][0]).producer,
            b.g.tensor(ctx.input_grads()[0][0]).producer);
}

// batch_norm act=relu is relu of the f32 y; batch_norm_bwd's gate masks dy first, exactly as
// relu_bwd would: the same bits as the separate ops.
TEST(OpsBatchNorm, EpiloguesAreTheSeparateOpsBitForBit) {
  BnGraph plain, fused;
  build(&plain, {2, 3, 2, 2}, {});
  build(&fused, {2, 3, 2, 2}, Attrs{{"act", std::string("relu")}});
  const TensorId relu = plain.g.add(OpType::Relu, "relu", OpCategory::Forward, {plain.out[0]});
  const std::vector<float> wave_dy = wave(24, 1.0f, 0.1f), gate = wave(24, 1.0f, -0.2f);
  const TensorId dy = param(plain.g, "dy", {2, 3, 2, 2}, wave_dy, TensorRole::Gradient);
  const TensorId g = param(plain.g, "gate", {2, 3, 2, 2}, gate);
  const TensorId masked = plain.g.add(OpType::ReluBwd, "mask", OpCategory::ActivationGrad, {dy, g});
  const std::vector<TensorId> bwd =
      plain.g.add_op(OpType::BatchNormBwd, "bwd", OpCategory::ActivationGrad,
                     {masked, plain.x, plain.gamma, plain.out[1], plain.out[2]});
  const TensorId dy2 = param(fused.g, "dy", {2, 3, 2, 2}, wave_dy, TensorRole::Gradient);
  const TensorId g2 = param(fused.g, "gate", {2, 3, 2, 2}, gate);
  const std::vector<TensorId> gated =
      fused.g.add_op(OpType::BatchNormBwd, "bwd", OpCategory::ActivationGrad,
                     {dy2, fused.x, fused.gamma, fused.out[1], fused.out[2], g2});
  Interpreter a(plain.g), b(fused.g);
  a.run();
  b.run();
  const std::vector<float> y = b.value(fused.out[0]).f32();
  EXPECT_EQ(std::memcmp(y.data(), a.value(relu).f32().data(), y.size() * sizeof(float)), 0);
  EXPECT_NE(a.value(plain.out[0]).f32(), y);  // relu changed something
  for (size_t k = 0; k < 3; ++k) {
    const std::vector<float> want = a.value(bwd[k]).f32(), got = b.value(gated[k]).f32();
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
        << "output " << k;
  }
}

TEST(OpsBatchNorm, EpilogueErrors) {
  BnGraph b;
  EXPECT_EQ(user_error([&] {
              build(&b, {2, 3, 2, 2}, Attrs{{"act", std::string("tanh")}});
            }),
            "shape inference: op 'bn' (batch_norm): attribute 'act' must be \"none\", \"relu\", "
            "\"relu6\", \"sigmoid\", \"silu\", \"hardswish\", \"hardsigmoid\", \"gelu\" or "
            "\"gelu_tanh\", not \"tanh\"");
  BnGraph f;
  build(&f, {2, 3, 2, 2}, Attrs{{"act", std::string("relu")}});
  const TensorId dy = param(f.g, "dy", {2, 3, 2, 2}, wave(24, 1, 0), TensorRole::Gradient);
  const TensorId gate = param(f.g, "gate", {2, 3, 4}, wave(24, 1, 0));
  EXPECT_EQ(user_error([&] {
              f.g.add_op(OpType::BatchNormBwd, "bnb", OpCategory::ActivationGrad,
                         {dy, f.x, f.gamma, f.out[1], f.out[2], gate});
            }),
            "shape inference: op 'bnb' (batch_norm_bwd): input 'gate' is f32[2,3,4], expected "
            "f32[2,3,2,2]");
  BackwardContext ctx(f.g, f.g.op(f.g.find_op("bn")), {dy, {}, {}, {}, {}},
                      {true, true, true, false, false});
  EXPECT_EQ(user_error([&] { op_schema(OpType::BatchNorm).backward(ctx); }),
            "autodiff: op 'bn' (batch_norm) has a fused epilogue (act=relu) and cannot be "
            "differentiated; differentiate the graph before fusion");
}

testing::GradCheckSpec bn_spec(const Shape& shape, uint32_t seed) {
  testing::GradCheckSpec spec;
  spec.type = OpType::BatchNorm;
  spec.seed = seed;
  testing::GradInput x, gamma, beta, stat;
  x.shape = shape;
  x.lo = -2.0f;
  x.hi = 2.0f;
  gamma.shape = beta.shape = stat.shape = {shape[1]};
  gamma.lo = 0.5f;
  gamma.hi = 1.5f;
  gamma.role = beta.role = TensorRole::Weight;
  stat.role = TensorRole::State;
  stat.differentiable = false;
  stat.lo = 0.5f;
  spec.inputs = {x, gamma, beta, stat, stat};
  return spec;
}

TEST(OpsBatchNorm, Grad4d) {
  const testing::GradCheckResult r = testing::grad_check(bn_spec({2, 3, 3, 2}, 3));
  EXPECT_TRUE(r.ok) << r.report;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_GE(r.error[i], 0.0) << "input " << i << " not checked";
}

TEST(OpsBatchNorm, Grad2d) {
  const testing::GradCheckResult r = testing::grad_check(bn_spec({5, 4}, 5));
  EXPECT_TRUE(r.ok) << r.report;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_GE(r.error[i], 0.0) << "input " << i << " not checked";
}

}  // namespace
}  // namespace s2::ir
