// gemm: forward values for every transpose combination (bit-exact against the documented
// accumulation order), the PPU epilogue (residual, act, gate) bit for bit against the
// separate ops, shape-inference errors, the backward ops' flags, and gradient checks. bmm
// (gemm per batch index, also in gemm.cpp): the same, plus operands read through transpose
// views (attention's head split).

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ostream>
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

std::vector<float> ramp(size_t n, float scale, float shift) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(scale * static_cast<float>((i * 7 + 3) % 11) + shift);
  return v;
}

struct Case {
  int64_t ta, tb;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "trans_a=" << c.ta << " trans_b=" << c.tb;
}

class OpsGemmTrans : public ::testing::TestWithParam<Case> {};

// y = op(a) op(b) + bias with M=3, K=5, N=4, against the formula evaluated element by element
// in the documented order: acc = 0; acc += a*b for k = 0..K-1; y = acc + bias.
TEST_P(OpsGemmTrans, ForwardMatchesFormula) {
  const Case c = GetParam();
  const size_t m = 3, k = 5, n = 4;
  const std::vector<float> av = ramp(m * k, 0.37f, -1.3f);
  const std::vector<float> bv = ramp(k * n, -0.21f, 0.9f);
  const std::vector<float> biasv = {0.5f, -0.25f, 1.0f, 2.0f};
  Graph g;
  const TensorId a = param(g, "a", c.ta ? Shape{5, 3} : Shape{3, 5}, av);
  const TensorId b = param(g, "b", c.tb ? Shape{4, 5} : Shape{5, 4}, bv);
  const TensorId bias = param(g, "bias", {4}, biasv);
  const TensorId y = g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, b, bias},
                           Attrs{{"trans_a", c.ta}, {"trans_b", c.tb}});
  const TensorId y_nobias = g.add(OpType::Gemm, "fc2", OpCategory::Forward, {a, b},
                                  Attrs{{"trans_a", c.ta}, {"trans_b", c.tb}});
  EXPECT_EQ(g.tensor(y).shape, (Shape{3, 4}));
  Interpreter it(g);
  it.run();
  std::vector<float> want, want_nobias;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (size_t kk = 0; kk < k; ++kk) {
        const float x = c.ta ? av[kk * m + i] : av[i * k + kk];
        const float w = c.tb ? bv[j * k + kk] : bv[kk * n + j];
        const float p = x * w;
        acc = acc + p;
      }
      want_nobias.push_back(acc);
      want.push_back(acc + biasv[j]);
    }
  EXPECT_EQ(it.value(y).f32(), want);
  EXPECT_EQ(it.value(y_nobias).f32(), want_nobias);
}

TEST_P(OpsGemmTrans, Gradients) {
  const Case c = GetParam();
  testing::GradCheckSpec spec;
  spec.type = OpType::Gemm;
  spec.attrs = Attrs{{"trans_a", c.ta}, {"trans_b", c.tb}};
  testing::GradInput a, b, bias, residual;
  a.shape = c.ta ? Shape{4, 3} : Shape{3, 4};  // M=3, K=4
  b.shape = c.tb ? Shape{5, 4} : Shape{4, 5};  // N=5
  b.role = TensorRole::Weight;
  bias.shape = {5};
  bias.role = TensorRole::Weight;
  residual.shape = {3, 5};
  spec.inputs = {a, b, bias, residual};
  spec.seed = static_cast<uint32_t>(11 + 2 * c.ta + c.tb);
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

INSTANTIATE_TEST_SUITE_P(OpsGemm, OpsGemmTrans,
                         ::testing::Values(Case{0, 0}, Case{0, 1}, Case{1, 0}, Case{1, 1}),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return "ta" + std::to_string(p.param.ta) + "_tb" +
                                  std::to_string(p.param.tb);
                         });

TEST(OpsGemm, LinearLayer) {
  // PyTorch Linear: y = x w^T + bias with w [out, in].
  Graph g;
  const TensorId x = param(g, "x", {2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorId w = param(g, "w", {2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f}, TensorRole::Weight);
  const TensorId bias = param(g, "b", {2}, {10, 20}, TensorRole::Weight);
  const TensorId y =
      g.add(OpType::Gemm, "fc", OpCategory::Forward, {x, w, bias}, Attrs{{"trans_b", int64_t{1}}});
  Interpreter it(g);
  it.run();
  EXPECT_EQ(it.value(y).f32(), (std::vector<float>{8, 23, 8, 27.5f}));
  EXPECT_EQ(op_schema(OpType::Gemm).fusion, FusionClass::Pe);
}

TEST(OpsGemm, ShapeErrors) {
  Graph g;
  const TensorId a = param(g, "a", {3, 5}, ramp(15, 1, 0));
  const TensorId b = param(g, "b", {4, 6}, ramp(24, 1, 0));
  const TensorId v = param(g, "v", {5}, ramp(5, 1, 0));
  const TensorId bias = param(g, "bias", {5}, ramp(5, 1, 0));
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {5, 6});
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, b});
            }),
            "shape inference: op 'fc' (gemm): inner dimensions differ: input 'a' f32[3,5] "
            "(trans_a=0) has K=5, input 'b' f32[4,6] (trans_b=0) has K=4");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, b},
                    Attrs{{"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}});
            }),
            "shape inference: op 'fc' (gemm): inner dimensions differ: input 'a' f32[3,5] "
            "(trans_a=1) has K=3, input 'b' f32[4,6] (trans_b=1) has K=6");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Gemm, "fc", OpCategory::Forward, {v, b});
            }),
            "shape inference: op 'fc' (gemm): input 'a' f32[5] must have rank 2");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, labels});
            }),
            "shape inference: op 'fc' (gemm): input 'b' i32[5,6] must have a float element type "
            "(f32, bf16 or f16)");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, a, bias},
                    Attrs{{"trans_b", int64_t{1}}});
            }),
            "shape inference: op 'fc' (gemm): input 'bias' is f32[5], expected f32[3]");
  EXPECT_EQ(
      user_error([&] {
        g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, a}, Attrs{{"trans_b", int64_t{2}}});
      }),
      "shape inference: op 'fc' (gemm): attribute 'trans_b' must be 0 or 1, not 2");
}

// The gradients are single gemms over the original operands (no transposed copies), with the
// weight gradient in category WeightGrad and the bias gradient a reduce_sum over rows.
TEST(OpsGemm, BackwardOps) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3}, ramp(6, 1, 0));
  const TensorId w = param(g, "w", {4, 3}, ramp(12, 1, 0), TensorRole::Weight);
  const TensorId bias = param(g, "b", {4}, ramp(4, 1, 0), TensorRole::Weight);
  g.add(OpType::Gemm, "fc", OpCategory::Forward, {x, w, bias}, Attrs{{"trans_b", int64_t{1}}});
  const TensorId dy = param(g, "dy", {2, 4}, ramp(8, 1, 0), TensorRole::Gradient);
  BackwardContext ctx(g, g.op(g.find_op("fc")), {dy}, {true, true, true});
  op_schema(OpType::Gemm).backward(ctx);
  auto producer = [&](size_t i) -> const Op& {
    return g.op(g.tensor(ctx.input_grads()[i].at(0)).producer);
  };
  EXPECT_EQ(producer(0).name, "fc.grad_a");
  EXPECT_EQ(producer(0).category, OpCategory::ActivationGrad);
  EXPECT_EQ(producer(0).inputs, (std::vector<TensorId>{dy, w, TensorId(), TensorId(), TensorId()}));
  EXPECT_EQ(producer(0).attrs.text(),
            "act=\"none\" gate_act=\"relu\" keep_pre=0 trans_a=0 trans_b=0");
  EXPECT_EQ(producer(1).name, "fc.grad_b");
  EXPECT_EQ(producer(1).category, OpCategory::WeightGrad);
  EXPECT_EQ(producer(1).inputs, (std::vector<TensorId>{dy, x, TensorId(), TensorId(), TensorId()}));
  EXPECT_EQ(producer(1).attrs.text(),
            "act=\"none\" gate_act=\"relu\" keep_pre=0 trans_a=1 trans_b=0");
  EXPECT_EQ(g.tensor(ctx.input_grads()[1][0]).shape, (Shape{4, 3}));
  EXPECT_EQ(producer(2).name, "fc.grad_bias");
  EXPECT_EQ(producer(2).type, OpType::ReduceSum);
  EXPECT_EQ(producer(2).category, OpCategory::WeightGrad);
  EXPECT_EQ(producer(2).attrs.text(), "axes=[0] keepdims=0");
}

// y = act(a.b + bias + residual), then kept where gate > 0, each step rounded to f32 like
// the separate add, relu and relu_bwd ops.
TEST(OpsGemm, EpilogueIsTheIsaOrderRoundedLikeSeparateOps) {
  Graph g;
  const TensorId a = param(g, "a", {3, 5}, ramp(15, 0.3f, -1.4f));
  const TensorId b = param(g, "b", {5, 4}, ramp(20, 0.7f, -3.1f));
  const TensorId bias = param(g, "bias", {4}, ramp(4, 0.9f, -4.2f));
  const TensorId r = param(g, "r", {3, 4}, ramp(12, 1.3f, -6.3f));
  const TensorId gate = param(g, "gate", {3, 4}, ramp(12, 1.0f, -4.5f));
  const TensorId plain = g.add(OpType::Gemm, "plain", OpCategory::Forward, {a, b, bias});
  const TensorId fused = g.add(OpType::Gemm, "fused", OpCategory::Forward, {a, b, bias, r, gate},
                               Attrs{{"act", std::string("relu")}});
  Interpreter it(g);
  it.run();
  std::vector<float> want = it.value(plain).f32();
  const std::vector<float> rv = it.value(r).f32(), gv = it.value(gate).f32();
  size_t relu_zeroed = 0, gated = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const float sum = want[i] + rv[i];
    relu_zeroed += sum > 0.0f ? 0u : 1u;
    gated += gv[i] > 0.0f ? 0u : 1u;
    want[i] = gv[i] > 0.0f ? (sum > 0.0f ? sum : 0.0f) : 0.0f;
  }
  EXPECT_GT(relu_zeroed, 0u);
  EXPECT_GT(gated, 0u);
  const std::vector<float> got = it.value(fused).f32();
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
}

TEST(OpsGemm, EpilogueShapeErrors) {
  Graph g;
  const TensorId a = param(g, "a", {3, 5}, ramp(15, 1, 0));
  const TensorId b = param(g, "b", {5, 4}, ramp(20, 1, 0));
  const TensorId wrong = param(g, "wrong", {4, 3}, ramp(12, 1, 0));
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, b, TensorId(), wrong});
            }),
            "shape inference: op 'fc' (gemm): input 'residual' is f32[4,3], expected f32[3,4]");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, b, TensorId(), TensorId(), wrong});
            }),
            "shape inference: op 'fc' (gemm): input 'gate' is f32[4,3], expected f32[3,4]");
  EXPECT_EQ(
      user_error([&] {
        g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, b}, Attrs{{"act", std::string("")}});
      }),
      "shape inference: op 'fc' (gemm): attribute 'act' must be \"none\", \"relu\", \"relu6\", "
      "\"sigmoid\", \"silu\", \"hardswish\", \"hardsigmoid\", \"gelu\" or \"gelu_tanh\", "
      "not \"\"");
}

// A residual's gradient is dy; a gemm whose epilogue applies an activation or a gate is the
// result of fusion and is not differentiated.
TEST(OpsGemm, ResidualGetsDyFusedEpiloguesAreRefused) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3}, ramp(6, 1, 0));
  const TensorId w = param(g, "w", {3, 4}, ramp(12, 1, 0), TensorRole::Weight);
  const TensorId r = param(g, "r", {2, 4}, ramp(8, 1, 0));
  const TensorId dy = param(g, "dy", {2, 4}, ramp(8, 1, 0), TensorRole::Gradient);
  g.add(OpType::Gemm, "res", OpCategory::Forward, {x, w, TensorId(), r});
  BackwardContext ctx(g, g.op(g.find_op("res")), {dy}, {true, true, false, true, false});
  op_schema(OpType::Gemm).backward(ctx);
  EXPECT_EQ(ctx.input_grads()[3], (std::vector<TensorId>{dy}));
  EXPECT_EQ(ctx.input_grads()[0].size(), 1u);
  g.add(OpType::Gemm, "act", OpCategory::Forward, {x, w}, Attrs{{"act", std::string("relu")}});
  g.add(OpType::Gemm, "gated", OpCategory::Forward, {x, w, TensorId(), TensorId(), r});
  for (const char* name : {"act", "gated"}) {
    BackwardContext fused(g, g.op(g.find_op(name)), {dy}, {true, true, false, false, false});
    EXPECT_EQ(user_error([&] { op_schema(OpType::Gemm).backward(fused); }),
              "autodiff: op '" + std::string(name) + "' (gemm) has a fused epilogue (" +
                  (name == std::string("act") ? "act=relu" : "gate") +
                  ") and cannot be differentiated; differentiate the graph before fusion");
  }
}

TEST(OpsGemm, NoGradientFlowsNoOps) {
  Graph g;
  const TensorId x = param(g, "x", {2, 3}, ramp(6, 1, 0));
  const TensorId w = param(g, "w", {3, 4}, ramp(12, 1, 0), TensorRole::Weight);
  g.add(OpType::Gemm, "fc", OpCategory::Forward, {x, w});
  const size_t ops = g.num_ops();
  BackwardContext none(g, g.op(g.find_op("fc")), {TensorId()}, {true, true, false});
  op_schema(OpType::Gemm).backward(none);
  EXPECT_EQ(g.num_ops(), ops);
  const TensorId dy = param(g, "dy", {2, 4}, ramp(8, 1, 0), TensorRole::Gradient);
  BackwardContext weight_only(g, g.op(g.find_op("fc")), {dy}, {false, true, false});
  op_schema(OpType::Gemm).backward(weight_only);
  EXPECT_EQ(g.num_ops(), ops + 1);
  EXPECT_TRUE(weight_only.input_grads()[0].empty());
}

// ---- bmm: one gemm per batch index ----------------------------------------------------

class OpsBmmTrans : public ::testing::TestWithParam<Case> {};

// Element (i, j) of batch z of op(a) op(b), summed from +0 in increasing k as gemm does.
float formula(const std::vector<float>& av, const std::vector<float>& bv, const Case& c, size_t z,
              size_t i, size_t j, size_t m, size_t n, size_t k) {
  float acc = 0.0f;
  for (size_t kk = 0; kk < k; ++kk) {
    const float x = c.ta ? av[z * m * k + kk * m + i] : av[z * m * k + i * k + kk];
    const float w = c.tb ? bv[z * k * n + j * k + kk] : bv[z * k * n + kk * n + j];
    const float p = x * w;
    acc = acc + p;
  }
  return acc;
}

// Two batch dimensions [2,3], M=3, K=5, N=4.
TEST_P(OpsBmmTrans, ForwardIsOneGemmPerBatchIndex) {
  const Case c = GetParam();
  const size_t batches = 6, m = 3, k = 5, n = 4;
  const std::vector<float> av = ramp(batches * m * k, 0.37f, -1.3f);
  const std::vector<float> bv = ramp(batches * k * n, -0.21f, 0.9f);
  Graph g;
  const TensorId a = param(g, "a", c.ta ? Shape{2, 3, 5, 3} : Shape{2, 3, 3, 5}, av);
  const TensorId b = param(g, "b", c.tb ? Shape{2, 3, 4, 5} : Shape{2, 3, 5, 4}, bv);
  const TensorId y = g.add(OpType::Bmm, "scores", OpCategory::Forward, {a, b},
                           Attrs{{"trans_a", c.ta}, {"trans_b", c.tb}});
  EXPECT_EQ(g.tensor(y).shape, (Shape{2, 3, 3, 4}));
  Interpreter it(g);
  it.run();
  std::vector<float> want;
  for (size_t z = 0; z < batches; ++z)
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j)
        want.push_back(formula(av, bv, c, z, i, j, m, n, k));
  EXPECT_EQ(it.value(y).f32(), want);
}

TEST_P(OpsBmmTrans, Gradients) {
  const Case c = GetParam();
  for (bool rank4 : {false, true}) {
    testing::GradCheckSpec spec;
    spec.type = OpType::Bmm;
    spec.attrs = Attrs{{"trans_a", c.ta}, {"trans_b", c.tb}};
    const Shape batch = rank4 ? Shape{2, 2} : Shape{3};
    auto shape = [&batch](int64_t r, int64_t cols) {
      Shape s = batch;
      s.push_back(r);
      s.push_back(cols);
      return s;
    };
    testing::GradInput a, b;
    a.shape = c.ta ? shape(4, 3) : shape(3, 4);  // M=3, K=4
    b.shape = c.tb ? shape(5, 4) : shape(4, 5);  // N=5
    spec.inputs = {a, b};
    spec.seed = static_cast<uint32_t>(31 + 2 * c.ta + c.tb + (rank4 ? 8 : 0));
    const testing::GradCheckResult r = testing::grad_check(spec);
    EXPECT_TRUE(r.ok) << (rank4 ? "rank 4: " : "rank 3: ") << r.report;
  }
}

INSTANTIATE_TEST_SUITE_P(OpsBmm, OpsBmmTrans,
                         ::testing::Values(Case{0, 0}, Case{0, 1}, Case{1, 0}, Case{1, 1}),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return "ta" + std::to_string(p.param.ta) + "_tb" +
                                  std::to_string(p.param.tb);
                         });

// Attention's scores from a [N, T, H, dh] projection: q and k are transpose views [N, H, T, dh]
// (strided, no copy), the scores bmm(q, k, trans_b=1) read them through their strides and
// equal the product of the dense per-head matrices.
TEST(OpsBmm, ReadsHeadSplitViewsThroughTheirStrides) {
  const size_t batch = 2, t = 4, heads = 3, dh = 5;
  const std::vector<float> qv = ramp(batch * t * heads * dh, 0.29f, -1.1f);
  const std::vector<float> kv = ramp(batch * t * heads * dh, -0.17f, 0.8f);
  Graph g;
  const TensorId q = param(g, "q", {2, 4, 3, 5}, qv);
  const TensorId k = param(g, "k", {2, 4, 3, 5}, kv);
  const Attrs perm{{"perm", std::vector<int64_t>{0, 2, 1, 3}}};
  const TensorId qh = g.add(OpType::Transpose, "qh", OpCategory::Forward, {q}, perm);
  const TensorId kh = g.add(OpType::Transpose, "kh", OpCategory::Forward, {k}, perm);
  EXPECT_FALSE(g.tensor(qh).contiguous());
  const TensorId s =
      g.add(OpType::Bmm, "scores", OpCategory::Forward, {qh, kh}, Attrs{{"trans_b", int64_t{1}}});
  EXPECT_EQ(g.tensor(s).shape, (Shape{2, 3, 4, 4}));
  Interpreter it(g);
  it.run();
  const std::vector<float> got = it.value(s).f32();
  size_t at = 0;
  for (size_t n = 0; n < batch; ++n)
    for (size_t h = 0; h < heads; ++h)
      for (size_t i = 0; i < t; ++i)
        for (size_t j = 0; j < t; ++j) {
          float acc = 0.0f;
          for (size_t d = 0; d < dh; ++d) {
            const float p =
                qv[((n * t + i) * heads + h) * dh + d] * kv[((n * t + j) * heads + h) * dh + d];
            acc = acc + p;
          }
          EXPECT_EQ(got[at], acc) << "n " << n << " h " << h << " i " << i << " j " << j;
          ++at;
        }
}

TEST(OpsBmm, ShapeErrors) {
  Graph g;
  const TensorId a = param(g, "a", {2, 3, 5}, ramp(30, 1, 0));
  const TensorId b = param(g, "b", {2, 4, 6}, ramp(48, 1, 0));
  const TensorId other = param(g, "other", {3, 5, 6}, ramp(90, 1, 0));
  const TensorId m2 = param(g, "m2", {5, 6}, ramp(30, 1, 0));
  const TensorId r5 = param(g, "r5", {1, 1, 2, 3, 5}, ramp(30, 1, 0));
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Bmm, "s", OpCategory::Forward, {a, b});
            }),
            "shape inference: op 's' (bmm): inner dimensions differ: input 'a' f32[2,3,5] "
            "(trans_a=0) has K=5, input 'b' f32[2,4,6] (trans_b=0) has K=4");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Bmm, "s", OpCategory::Forward, {a, other});
            }),
            "shape inference: op 's' (bmm): batch dimensions differ: input 'a' f32[2,3,5], "
            "input 'b' f32[3,5,6] (broadcast a batch dimension with an expand view)");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Bmm, "s", OpCategory::Forward, {a, m2});
            }),
            "shape inference: op 's' (bmm): input 'a' f32[2,3,5] and input 'b' f32[5,6] must "
            "have the same rank, 3 or 4: one or two batch dimensions, then a matrix");
  EXPECT_EQ(
      user_error([&] {
        g.add(OpType::Bmm, "s", OpCategory::Forward, {r5, r5}, Attrs{{"trans_b", int64_t{1}}});
      }),
      "shape inference: op 's' (bmm): input 'a' f32[1,1,2,3,5] and input 'b' "
      "f32[1,1,2,3,5] must have the same rank, 3 or 4: one or two batch dimensions, then a "
      "matrix");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Bmm, "s", OpCategory::Forward, {a, a}, Attrs{{"trans_a", int64_t{3}}});
            }),
            "shape inference: op 's' (bmm): attribute 'trans_a' must be 0 or 1, not 3");
}

// The gradients of attention's scores = bmm(q, k, trans_b=1) are bmms over the original
// operands (dq = ds . k, dk = ds^T . q), never a transposed copy.
TEST(OpsBmm, BackwardOpsReadTheOriginalOperands) {
  Graph g;
  const TensorId q = param(g, "q", {2, 4, 3}, ramp(24, 1, 0));
  const TensorId k = param(g, "k", {2, 4, 3}, ramp(24, 1, 0));
  g.add(OpType::Bmm, "scores", OpCategory::Forward, {q, k}, Attrs{{"trans_b", int64_t{1}}});
  const TensorId ds = param(g, "ds", {2, 4, 4}, ramp(32, 1, 0), TensorRole::Gradient);
  BackwardContext ctx(g, g.op(g.find_op("scores")), {ds}, {true, true});
  op_schema(OpType::Bmm).backward(ctx);
  auto producer = [&](size_t i) -> const Op& {
    return g.op(g.tensor(ctx.input_grads()[i].at(0)).producer);
  };
  EXPECT_EQ(producer(0).name, "scores.grad_a");
  EXPECT_EQ(producer(0).type, OpType::Bmm);
  EXPECT_EQ(producer(0).inputs, (std::vector<TensorId>{ds, k}));
  EXPECT_EQ(producer(0).attrs.text(), "trans_a=0 trans_b=0");
  EXPECT_EQ(producer(1).name, "scores.grad_b");
  EXPECT_EQ(producer(1).inputs, (std::vector<TensorId>{ds, q}));
  EXPECT_EQ(producer(1).attrs.text(), "trans_a=1 trans_b=0");
  EXPECT_EQ(g.tensor(ctx.input_grads()[1][0]).shape, (Shape{2, 4, 3}));
  EXPECT_EQ(op_schema(OpType::Bmm).fusion, FusionClass::Pe);
}

}  // namespace
}  // namespace s2::ir
