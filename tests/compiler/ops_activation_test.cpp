// The activation op family (relu6, sigmoid, silu, hardswish, hardsigmoid, gelu, gelu_tanh):
// forward values against the textbook formulas in double, gradient checks of every backward
// rule by finite differences away from the kinks, which tensor each backward reads, and the
// shape-inference errors.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "gradcheck.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

const char* const kActs[] = {"relu6",       "sigmoid", "silu",     "hardswish",
                             "hardsigmoid", "gelu",    "gelu_tanh"};

double reference(const std::string& act, double x) {
  const double sigmoid = 1.0 / (1.0 + std::exp(-x));
  if (act == "relu6") return std::min(std::max(x, 0.0), 6.0);
  if (act == "sigmoid") return sigmoid;
  if (act == "silu") return x * sigmoid;
  if (act == "hardswish") return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
  if (act == "hardsigmoid") return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
  if (act == "gelu") return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  const double k = std::sqrt(2.0 / M_PI);  // gelu_tanh
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// Values from -8 to 8 that keep 0.05 away from every kink (0, 6, -3, 3).
std::vector<float> away_from_kinks(size_t n) {
  std::vector<float> v;
  for (size_t i = 0; v.size() < n; ++i) {
    const float x = -8.0f + 0.37f * static_cast<float>(i % 44);
    bool near = false;
    for (float kink : {0.0f, 6.0f, -3.0f, 3.0f})
      near = near || std::fabs(x - kink) < 0.05f;
    if (!near) v.push_back(x);
  }
  return v;
}

TEST(OpsActivation, ForwardMatchesTheFormulas) {
  const std::vector<float> x = away_from_kinks(40);
  for (const char* act : kActs) {
    Graph g;
    const TensorId in = param(g, "x", {static_cast<int64_t>(x.size())}, x);
    const TensorId y =
        g.add(OpType::Activation, "act", OpCategory::Forward, {in}, Attrs{{"act", act}});
    Interpreter it(g);
    it.run();
    const std::vector<float> got = it.value(y).f32();
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = reference(act, x[i]);
      EXPECT_NEAR(got[i], want, 4e-7 * std::max(1.0, std::fabs(want))) << act << "(" << x[i] << ")";
    }
  }
}

TEST(OpsActivation, ExactPoints) {
  const std::vector<float> x = {-3.0f, 0.0f, 3.0f, 6.0f, 7.5f, -1e9f};
  auto run = [&](const std::string& act) {
    Graph g;
    const TensorId in = param(g, "x", {6}, x);
    const TensorId y =
        g.add(OpType::Activation, "act", OpCategory::Forward, {in}, Attrs{{"act", act}});
    Interpreter it(g);
    it.run();
    return it.value(y).f32();
  };
  EXPECT_EQ(run("relu6"), (std::vector<float>{0.0f, 0.0f, 3.0f, 6.0f, 6.0f, 0.0f}));
  EXPECT_EQ(run("hardswish"), (std::vector<float>{-0.0f, 0.0f, 3.0f, 6.0f, 7.5f, -0.0f}));
  EXPECT_EQ(run("hardsigmoid"), (std::vector<float>{0.0f, 0.5f, 1.0f, 1.0f, 1.0f, 0.0f}));
  EXPECT_EQ(run("sigmoid")[1], 0.5f);
  EXPECT_EQ(run("sigmoid")[5], 0.0f);
  EXPECT_EQ(run("gelu")[1], 0.0f);
  EXPECT_EQ(run("gelu_tanh")[4], 7.5f);
}

TEST(OpsActivation, GradientsByFiniteDifferences) {
  for (const char* act : kActs) {
    testing::GradCheckSpec spec;
    spec.type = OpType::Activation;
    spec.attrs = Attrs{{"act", act}};
    testing::GradInput x;
    x.shape = {2, 3, 6};
    x.values = away_from_kinks(36);
    spec.inputs = {x};
    const testing::GradCheckResult r = testing::grad_check(spec);
    EXPECT_TRUE(r.ok) << act << ": " << r.report;
  }
}

// relu6 and sigmoid differentiate from their output (so they can fuse into the producer of
// their input); the others need the input.
TEST(OpsActivation, BackwardReadsOutputOrInput) {
  for (const char* act : kActs) {
    Graph g;
    const TensorId x = param(g, "x", {4}, {-1.0f, 0.5f, 2.0f, 7.0f});
    const TensorId y =
        g.add(OpType::Activation, "a", OpCategory::Forward, {x}, Attrs{{"act", act}});
    const TensorId dy = param(g, "dy", {4}, {1.0f, 1.0f, 1.0f, 1.0f});
    BackwardContext ctx(g, g.op(g.find_op("a")), {dy}, {true});
    op_schema(OpType::Activation).backward(ctx);
    ASSERT_EQ(ctx.input_grads()[0].size(), 1u);
    const Op& bwd = g.op(g.tensor(ctx.input_grads()[0][0]).producer);
    EXPECT_EQ(bwd.type, OpType::ActivationBwd);
    EXPECT_EQ(bwd.attrs.s("act"), act);
    const bool from_y = std::string(act) == "relu6" || std::string(act) == "sigmoid";
    EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{dy, from_y ? y : x})) << act;
  }
}

TEST(OpsActivation, ShapeErrors) {
  Graph g;
  const TensorId x = param(g, "x", {2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  const TensorId v = param(g, "v", {4}, {1.0f, 2.0f, 3.0f, 4.0f});
  const std::string head = "shape inference: op 'a' (activation): ";
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Activation, "a", OpCategory::Forward, {x}, Attrs{{"act", "relu"}});
            }),
            head + "attribute 'act' = \"relu\" is not an activation op (use the relu op)");
  EXPECT_EQ(user_error([&] {
              g.add(OpType::Activation, "a", OpCategory::Forward, {x}, Attrs{{"act", "none"}});
            }),
            head + "attribute 'act' = \"none\" is not an activation op (none computes nothing)");
  EXPECT_NE(user_error([&] {
              g.add(OpType::Activation, "a", OpCategory::Forward, {x}, Attrs{{"act", "tanh"}});
            }).find("attribute 'act' must be \"none\", \"relu\""),
            std::string::npos);
  EXPECT_NE(user_error([&] {
              g.add(OpType::ActivationBwd, "b", OpCategory::ActivationGrad, {x, v},
                    Attrs{{"act", "silu"}});
            }),
            "(no error)");
}

}  // namespace
}  // namespace s2::ir
