// softmax and softmax_bwd: forward values against the formula evaluated in double (ranks 1 to
// 4, a scale, an additive mask, a mask broadcast through an expand view, causal rows, -inf and
// fully masked rows), shape-inference errors, the backward ops, and gradient checks for x and
// the mask, causal and masked corners included.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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
    v.push_back(scale * std::sin(0.9f * static_cast<float>(i) + 0.2f) + shift);
  return v;
}

// softmax(scale * x + mask) of each row in double; causal keeps column j of row i when j <= i
// (i = r % rows_per_matrix).
std::vector<double> expected(const std::vector<float>& x, const std::vector<float>& mask,
                             size_t cols, size_t rows_per_matrix, double scale, bool causal) {
  std::vector<double> y(x.size(), 0.0);
  for (size_t r = 0; r < x.size() / cols; ++r) {
    const size_t kept = causal ? std::min(cols, r % rows_per_matrix + 1) : cols;
    double m = -INFINITY, s = 0;
    std::vector<double> z(kept);
    for (size_t c = 0; c < kept; ++c) {
      z[c] = scale * double{x[r * cols + c]} + (mask.empty() ? 0.0 : double{mask[r * cols + c]});
      m = std::max(m, z[c]);
    }
    for (size_t c = 0; c < kept; ++c)
      s += std::exp(z[c] - m);
    for (size_t c = 0; c < kept; ++c)
      y[r * cols + c] = std::exp(z[c] - m) / s;
  }
  return y;
}

void expect_near(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 2e-7) << "element " << i;
}

void check_forward(const Shape& shape, double scale, bool causal, bool masked) {
  Graph g;
  const size_t n = static_cast<size_t>(shape_numel(shape));
  const TensorId x = param(g, "x", shape, wave(n, 3.0f, 0.5f));
  std::vector<TensorId> in{x};
  if (masked) in.push_back(param(g, "mask", shape, wave(n, 2.0f, -1.0f)));
  const TensorId y = g.add(OpType::Softmax, "sm", OpCategory::Forward, in,
                           Attrs{{"scale", scale}, {"causal", int64_t{causal ? 1 : 0}}});
  EXPECT_EQ(g.tensor(y).shape, shape);
  Interpreter it(g);
  it.run();
  const size_t rows_per_matrix =
      shape.size() >= 2 ? static_cast<size_t>(shape[shape.size() - 2]) : 1;
  expect_near(it.value(y).f32(),
              expected(it.value(x).f32(), masked ? it.value(in[1]).f32() : std::vector<float>{},
                       static_cast<size_t>(shape.back()), rows_per_matrix,
                       static_cast<double>(static_cast<float>(scale)), causal));
}

TEST(OpsSoftmax, Forward1d) {
  check_forward({9}, 1.0, false, false);
}
TEST(OpsSoftmax, Forward2dScaledAndMasked) {
  check_forward({5, 7}, 0.125, false, true);
}
TEST(OpsSoftmax, Forward3dCausal) {
  check_forward({2, 6, 6}, 1.0, true, false);
}
TEST(OpsSoftmax, Forward4dCausalScaledMasked) {
  // Attention scores [N, heads, L, L]; and a non-square [.., 3, 5] whose later columns are
  // excluded from every row.
  check_forward({2, 3, 4, 4}, 0.5, true, true);
  check_forward({2, 3, 5}, 0.7, true, false);
}

// BERT's padding mask: one [N,1,1,L] row per sample, broadcast over heads and query rows by an
// expand view (zero strides), -inf on the padded keys. Their probabilities are exactly 0.
TEST(OpsSoftmax, BroadcastMaskThroughAnExpandView) {
  Graph g;
  const Shape scores{2, 3, 4, 5};
  const TensorId x = param(g, "x", scores, wave(120, 2.0f, 0.0f));
  const float inf = std::numeric_limits<float>::infinity();
  const TensorId pad = param(g, "pad", {2, 1, 1, 5}, {0, 0, 0, -inf, -inf, 0, 0, 0, 0, -inf});
  const TensorId wide = g.add(OpType::Expand, "expand", OpCategory::Forward, {pad},
                              Attrs{{"shape", std::vector<int64_t>{2, 3, 4, 5}}});
  EXPECT_EQ(g.tensor(wide).data, g.tensor(pad).data);  // a view, no copy
  const TensorId y = g.add(OpType::Softmax, "sm", OpCategory::Forward, {x, wide});
  Interpreter it(g);
  it.run();
  std::vector<float> mask;
  for (size_t n = 0; n < 2; ++n)
    for (size_t r = 0; r < 12; ++r)
      for (size_t c = 0; c < 5; ++c)
        mask.push_back(it.value(pad).f32()[n * 5 + c]);
  const std::vector<float> got = it.value(y).f32();
  expect_near(got, expected(it.value(x).f32(), mask, 5, 4, 1.0, false));
  for (size_t r = 0; r < 12; ++r) {
    EXPECT_EQ(got[r * 5 + 3], 0.0f);
    EXPECT_EQ(got[r * 5 + 4], 0.0f);
    EXPECT_EQ(got[60 + r * 5 + 4], 0.0f);
  }
}

// A row masked entirely with -inf has no distribution: NaN, as torch.softmax gives.
TEST(OpsSoftmax, FullyMaskedRowIsNaN) {
  Graph g;
  const float inf = std::numeric_limits<float>::infinity();
  const TensorId x = param(g, "x", {2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorId mask = param(g, "mask", {2, 3}, {0, 0, 0, -inf, -inf, -inf});
  const TensorId y = g.add(OpType::Softmax, "sm", OpCategory::Forward, {x, mask});
  Interpreter it(g);
  it.run();
  const std::vector<float> v = it.value(y).f32();
  EXPECT_NEAR(v[0] + v[1] + v[2], 1.0f, 1e-6f);
  for (size_t i = 3; i < 6; ++i)
    EXPECT_TRUE(std::isnan(v[i])) << i;
}

TEST(OpsSoftmax, SchemaAndErrors) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3, 4}, wave(24, 1, 0));
  const TensorId x5 = param(g, "x5", {1, 2, 1, 2, 4}, wave(16, 1, 0));
  const TensorId v = param(g, "v", {4}, wave(4, 1, 0));
  const TensorId m = param(g, "m", {3, 4}, wave(12, 1, 0));
  EXPECT_EQ(op_schema(OpType::Softmax).fusion, FusionClass::Ppu);
  EXPECT_EQ(op_schema(OpType::SoftmaxBwd).fusion, FusionClass::Ppu);
  auto sm = [&](std::vector<TensorId> in, Attrs attrs = {}) {
    return user_error([&] { g.add(OpType::Softmax, "sm", OpCategory::Forward, in, attrs); });
  };
  EXPECT_EQ(sm({x5}),
            "shape inference: op 'sm' (softmax): input 'x' f32[1,2,1,2,4] must have rank 1 to 4 "
            "(rows of its last dimension; the ISA's descriptors hold up to 4 dimensions)");
  EXPECT_EQ(sm({x, m}),
            "shape inference: op 'sm' (softmax): input 'mask' is f32[3,4], expected f32[2,3,4]");
  EXPECT_EQ(sm({v}, Attrs{{"causal", int64_t{1}}}),
            "shape inference: op 'sm' (softmax): input 'x' f32[4]: a causal softmax needs rows and "
            "columns (rank 2 to 4)");
  EXPECT_EQ(sm({x}, Attrs{{"causal", int64_t{2}}}),
            "shape inference: op 'sm' (softmax): attribute 'causal' must be 0 or 1, not 2");
  EXPECT_EQ(sm({x}, Attrs{{"scale", INFINITY}}),
            "shape inference: op 'sm' (softmax): scale=inf must be finite");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::SoftmaxBwd, "smb", OpCategory::ActivationGrad, {m, x});
            }),
            "shape inference: op 'smb' (softmax_bwd): input 'dy' is f32[3,4], expected f32[2,3,4]");
}

// The backward reads the forward output; the mask's gradient is a second softmax_bwd without
// the scale.
TEST(OpsSoftmax, BackwardOps) {
  Graph g;
  const TensorId x = param(g, "x", {3, 4}, wave(12, 1, 0));
  const TensorId mask = param(g, "mask", {3, 4}, wave(12, 1, 0));
  const TensorId y = g.add(OpType::Softmax, "sm", OpCategory::Forward, {x, mask},
                           Attrs{{"scale", 0.25}, {"causal", int64_t{1}}});
  const TensorId dy = param(g, "dy", {3, 4}, wave(12, 1, 0), TensorRole::Gradient);
  BackwardContext ctx(g, g.op(g.find_op("sm")), {dy}, {true, true});
  op_schema(OpType::Softmax).backward(ctx);
  ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
  ASSERT_EQ(ctx.input_grads()[1].size(), 1u);
  const Op& dx = g.op(g.tensor(ctx.input_grads()[0][0]).producer);
  const Op& dmask = g.op(g.tensor(ctx.input_grads()[1][0]).producer);
  EXPECT_EQ(dx.name, "sm.bwd");
  EXPECT_EQ(dx.type, OpType::SoftmaxBwd);
  EXPECT_EQ(dx.inputs, (std::vector<TensorId>{dy, y}));
  EXPECT_EQ(dx.attrs.f("scale"), 0.25);
  EXPECT_EQ(dmask.name, "sm.bwd_mask");
  EXPECT_EQ(dmask.attrs.f("scale"), 1.0);
}

testing::GradCheckSpec softmax_spec(const Shape& shape, double scale, bool causal, bool masked,
                                    uint32_t seed) {
  testing::GradCheckSpec spec;
  spec.type = OpType::Softmax;
  spec.seed = seed;
  spec.attrs = Attrs{{"scale", scale}, {"causal", int64_t{causal ? 1 : 0}}};
  testing::GradInput x, mask;
  x.shape = mask.shape = shape;
  x.lo = -2.0f;
  x.hi = 2.0f;
  mask.absent = !masked;
  spec.inputs = {x, mask};
  return spec;
}

void expect_grad(const testing::GradCheckSpec& spec) {
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
  EXPECT_GE(r.error[0], 0.0) << "x not checked";
  if (!spec.inputs[1].absent) {
    EXPECT_GE(r.error[1], 0.0) << "mask not checked";
  }
}

TEST(OpsSoftmax, Grad2d) {
  expect_grad(softmax_spec({4, 6}, 1.0, false, false, 3));
}
TEST(OpsSoftmax, Grad3dScaledWithMask) {
  expect_grad(softmax_spec({2, 5, 7}, 0.35, false, true, 5));
}
TEST(OpsSoftmax, Grad4dCausalWithMask) {
  expect_grad(softmax_spec({2, 2, 5, 5}, 0.5, true, true, 7));
}

// A mask that nearly excludes some columns (-30): their probabilities and gradients are tiny
// but the rest of each row must still be right.
TEST(OpsSoftmax, GradWithNearlyExcludedColumns) {
  testing::GradCheckSpec spec = softmax_spec({3, 6}, 1.0, false, true, 9);
  std::vector<float> mask(18, 0.0f);
  for (size_t r = 0; r < 3; ++r)
    mask[r * 6 + r] = -30.0f;
  spec.inputs[1].values = mask;
  expect_grad(spec);
}

}  // namespace
}  // namespace s2::ir
