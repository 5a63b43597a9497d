// softmax_ce and softmax_ce_bwd: values against the cross-entropy formula in double (mean and
// sum), numerical stability, the run-time error for a bad label, shape-inference errors, the
// backward op, gradient checks, and the gradient written over the logits.

#include <gtest/gtest.h>

#include <cmath>
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

const std::vector<float> kLogits = {0.5f,  -1.0f, 2.0f,  0.0f,  //
                                    3.0f,  3.0f,  -2.0f, 1.0f,  //
                                    -0.5f, 0.25f, 0.75f, -3.0f};
const std::vector<int32_t> kLabels = {2, 0, 3};

struct LossGraph {
  Graph g;
  TensorId logits, labels, loss, dlogits;
};

void build(LossGraph* b, const std::vector<float>& logits, const std::vector<int32_t>& labels,
           const std::string& reduction) {
  const int64_t n = static_cast<int64_t>(labels.size());
  const int64_t c = static_cast<int64_t>(logits.size()) / n;
  b->logits = b->g.add_parameter("logits", TensorRole::Activation, DType::F32, {n, c},
                                 std::make_shared<HostArray>(logits));
  b->labels = b->g.add_parameter("labels", TensorRole::Label, DType::I32, {n},
                                 std::make_shared<HostArray>(labels));
  const Attrs attrs{{"reduction", reduction}};
  b->loss = b->g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {b->logits, b->labels}, attrs);
  b->dlogits = b->g.add(OpType::SoftmaxCeBwd, "dloss", OpCategory::ActivationGrad,
                        {b->logits, b->labels}, attrs);
}

void check_values(const std::string& reduction) {
  LossGraph b;
  build(&b, kLogits, kLabels, reduction);
  Interpreter it(b.g);
  it.run();
  const size_t n = 3, c = 4;
  const double div = reduction == "mean" ? static_cast<double>(n) : 1.0;
  double loss = 0;
  std::vector<double> grad;
  for (size_t i = 0; i < n; ++i) {
    double z = 0;
    for (size_t j = 0; j < c; ++j)
      z += std::exp(double{kLogits[i * c + j]});
    loss += std::log(z) - double{kLogits[i * c + static_cast<size_t>(kLabels[i])]};
    for (size_t j = 0; j < c; ++j)
      grad.push_back((std::exp(double{kLogits[i * c + j]}) / z -
                      (j == static_cast<size_t>(kLabels[i]) ? 1.0 : 0.0)) /
                     div);
  }
  EXPECT_EQ(b.g.tensor(b.loss).shape, (Shape{1}));
  EXPECT_NEAR(it.value(b.loss).f32()[0], loss / div, 1e-6 * loss);
  const std::vector<float> d = it.value(b.dlogits).f32();
  ASSERT_EQ(d.size(), grad.size());
  for (size_t k = 0; k < d.size(); ++k)
    EXPECT_NEAR(d[k], grad[k], 1e-6) << "element " << k;
}

TEST(OpsLoss, MeanValues) {
  check_values("mean");
}
TEST(OpsLoss, SumValues) {
  check_values("sum");
}

TEST(OpsLoss, DefaultsAndSchema) {
  Graph g;
  const TensorId logits = g.add_parameter("logits", TensorRole::Activation, DType::F32, {2, 3});
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {2});
  g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {logits, labels});
  EXPECT_EQ(g.op(g.find_op("loss")).attrs.text(), "ignore_index=-100 reduction=\"mean\"");
  EXPECT_EQ(op_schema(OpType::SoftmaxCe).fusion, FusionClass::Ppu);
  EXPECT_EQ(op_schema(OpType::SoftmaxCeBwd).fusion, FusionClass::Ppu);
  // All-zero logits: log(C) per row.
  Interpreter it(g);
  it.run();
  EXPECT_FLOAT_EQ(it.value(g.find_tensor("loss")).f32()[0], std::log(3.0f));
}

// Large logits would overflow exp() without subtracting the row maximum.
TEST(OpsLoss, NumericallyStable) {
  LossGraph b;
  build(&b, {1000.0f, 1001.0f, 999.0f, -1000.0f, -1001.0f, -999.0f}, {1, 0}, "sum");
  Interpreter it(b.g);
  it.run();
  const double z = 1 + std::exp(-1.0) + std::exp(-2.0);   // row 0 relative to its max 1001
  const double want = std::log(z) + (std::log(z) + 1.0);  // row 1: label is 1 below the max
  EXPECT_NEAR(it.value(b.loss).f32()[0], want, 1e-5);
  const std::vector<float> d = it.value(b.dlogits).f32();
  for (float v : d)
    EXPECT_TRUE(std::isfinite(v));
}

TEST(OpsLoss, BadLabelIsAUserErrorAtRunTime) {
  LossGraph b;
  build(&b, kLogits, {2, 4, 0}, "mean");
  Interpreter it(b.g);
  EXPECT_EQ(user_error([&] { it.run(); }),
            "op 'loss' (softmax_ce): label 4 of sample 1 is outside the class range [0,4) and is "
            "not the ignore_index -100");
  LossGraph neg;
  build(&neg, kLogits, {0, 1, -1}, "mean");
  Interpreter it2(neg.g);
  it2.set_value(neg.labels, HostArray(std::vector<int32_t>{0, 1, 2}));
  it2.run();
  it2.set_value(neg.labels, HostArray(std::vector<int32_t>{0, -1, 2}));
  EXPECT_EQ(user_error([&] { it2.run(); }),
            "op 'loss' (softmax_ce): label -1 of sample 1 is outside the class range [0,4) and is "
            "not the ignore_index -100");
}

TEST(OpsLoss, ShapeErrors) {
  Graph g;
  const TensorId logits = g.add_parameter("logits", TensorRole::Activation, DType::F32, {3, 4});
  const TensorId flat = g.add_parameter("flat", TensorRole::Activation, DType::F32, {12});
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {3});
  const TensorId labels2 = g.add_parameter("labels2", TensorRole::Label, DType::I32, {2});
  const TensorId flabels = g.add_parameter("flabels", TensorRole::Label, DType::F32, {3});
  const TensorId dloss = g.add_parameter("dl", TensorRole::Gradient, DType::F32, {3});
  auto ce = [&](std::vector<TensorId> in, const Attrs& attrs = {}) {
    return user_error([&] { g.add(OpType::SoftmaxCe, "ce", OpCategory::Forward, in, attrs); });
  };
  EXPECT_EQ(ce({flat, labels}),
            "shape inference: op 'ce' (softmax_ce): input 'logits' f32[12] must have rank 2");
  EXPECT_EQ(ce({logits, flabels}),
            "shape inference: op 'ce' (softmax_ce): input 'labels' f32[3] must have element "
            "type i32");
  EXPECT_EQ(ce({logits, labels2}),
            "shape inference: op 'ce' (softmax_ce): input 'labels' i32[2] must have one label "
            "per row of input 'logits' f32[3,4]");
  EXPECT_EQ(ce({logits, labels}, Attrs{{"reduction", std::string("avg")}}),
            "shape inference: op 'ce' (softmax_ce): attribute 'reduction' must be \"mean\" or "
            "\"sum\", not \"avg\"");
  EXPECT_EQ(
      user_error([&] {
        g.add(OpType::SoftmaxCeBwd, "ceb", OpCategory::ActivationGrad, {logits, labels, dloss});
      }),
      "shape inference: op 'ceb' (softmax_ce_bwd): input 'dloss' is f32[3], expected "
      "f32[1]");
}

// The loss starts backpropagation: without an incoming gradient the rule emits
// softmax_ce_bwd(logits, labels); with one, it is passed as the optional dloss input.
TEST(OpsLoss, BackwardOp) {
  LossGraph b;
  build(&b, kLogits, kLabels, "sum");
  BackwardContext start(b.g, b.g.op(b.g.find_op("loss")), {TensorId()}, {true, false});
  op_schema(OpType::SoftmaxCe).backward(start);
  ASSERT_EQ(start.input_grads()[0].size(), 1u);
  EXPECT_TRUE(start.input_grads()[1].empty());
  const Op& bwd = b.g.op(b.g.tensor(start.input_grads()[0][0]).producer);
  EXPECT_EQ(bwd.name, "loss.bwd");
  EXPECT_EQ(bwd.type, OpType::SoftmaxCeBwd);
  EXPECT_EQ(bwd.category, OpCategory::ActivationGrad);
  EXPECT_EQ(bwd.inputs, (std::vector<TensorId>{b.logits, b.labels, TensorId()}));
  EXPECT_EQ(bwd.attrs.text(), "ignore_index=-100 in_place=0 reduction=\"sum\"");

  const TensorId dl = b.g.add_parameter("dl", TensorRole::Gradient, DType::F32, {1},
                                        std::make_shared<HostArray>(std::vector<float>{-2.5f}));
  BackwardContext inner(b.g, b.g.op(b.g.find_op("loss")), {dl}, {true, false});
  op_schema(OpType::SoftmaxCe).backward(inner);
  const TensorId scaled = inner.input_grads()[0].at(0);
  EXPECT_EQ(b.g.op(b.g.tensor(scaled).producer).name, "loss.bwd_2");
  Interpreter it(b.g);
  it.run();
  const std::vector<float> unit = it.value(start.input_grads()[0][0]).f32();
  const std::vector<float> times = it.value(scaled).f32();
  for (size_t k = 0; k < unit.size(); ++k)
    EXPECT_EQ(times[k], unit[k] * -2.5f);
}

testing::GradCheckSpec ce_spec(const std::string& reduction) {
  testing::GradCheckSpec spec;
  spec.type = OpType::SoftmaxCe;
  spec.attrs = Attrs{{"reduction", reduction}};
  testing::GradInput logits, labels;
  logits.shape = {4, 5};
  logits.lo = -3.0f;
  logits.hi = 3.0f;
  labels.shape = {4};
  labels.dtype = DType::I32;
  labels.role = TensorRole::Label;
  labels.differentiable = false;
  labels.ints = {3, 0, 4, 1};
  spec.inputs = {logits, labels};
  return spec;
}

TEST(OpsLoss, GradMean) {
  const testing::GradCheckResult r = testing::grad_check(ce_spec("mean"));
  EXPECT_TRUE(r.ok) << r.report;
  EXPECT_GE(r.error[0], 0.0);
}

TEST(OpsLoss, GradSum) {
  const testing::GradCheckResult r = testing::grad_check(ce_spec("sum"));
  EXPECT_TRUE(r.ok) << r.report;
  EXPECT_GE(r.error[0], 0.0);
}

// ignore_index: a row whose label is it adds no loss, gets a zero gradient, and the mean
// divides by the other rows only (PyTorch's F.cross_entropy(..., ignore_index=-100)).
TEST(OpsLoss, IgnoredRowsAddNothingAndAreNotCounted) {
  LossGraph all, kept;
  build(&all, kLogits, {2, -100, 3}, "mean");
  // The same without row 1.
  std::vector<float> two(kLogits.begin(), kLogits.begin() + 4);
  two.insert(two.end(), kLogits.begin() + 8, kLogits.end());
  build(&kept, two, {2, 3}, "mean");
  Interpreter a(all.g), k(kept.g);
  a.run();
  k.run();
  EXPECT_EQ(a.value(all.loss).f32()[0], k.value(kept.loss).f32()[0]);
  const std::vector<float> da = a.value(all.dlogits).f32(), dk = k.value(kept.dlogits).f32();
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(da[c], dk[c]);
    EXPECT_EQ(da[4 + c], 0.0f);
    EXPECT_EQ(da[8 + c], dk[4 + c]);
  }
  // Every row ignored: the mean is 0/0, NaN, as in PyTorch; the gradient is zero.
  LossGraph none;
  build(&none, kLogits, {-100, -100, -100}, "mean");
  Interpreter n(none.g);
  n.run();
  EXPECT_TRUE(std::isnan(n.value(none.loss).f32()[0]));
  const std::vector<float> zero = n.value(none.dlogits).f32();
  for (float v : zero)
    EXPECT_EQ(v, 0.0f);
  // Another ignore_index: -100 is then an ordinary, bad, label.
  LossGraph other;
  build(&other, kLogits, {2, 7, -100}, "mean");
  for (const char* op : {"loss", "dloss"})
    other.g.mutable_op(other.g.find_op(op)).attrs.set("ignore_index", int64_t{7});
  Interpreter o(other.g);
  EXPECT_EQ(user_error([&] { o.run(); }),
            "op 'loss' (softmax_ce): label -100 of sample 2 is outside the class range [0,4) and "
            "is not the ignore_index 7");
}

TEST(OpsLoss, GradWithIgnoredRows) {
  testing::GradCheckSpec spec = ce_spec("mean");
  spec.inputs[1].ints = {3, -100, 4, -100};
  const testing::GradCheckResult r = testing::grad_check(spec);
  EXPECT_TRUE(r.ok) << r.report;
}

// in_place=1 (pass in-place): dlogits is a view of the logits' data and overwrites them. The
// loss, added after the gradient here, still reads the logits first (Graph::predecessors), and
// every value is bit for bit that of a separate dlogits buffer.
TEST(OpsLoss, InPlaceGradientIsBitIdentical) {
  for (const char* reduction : {"mean", "sum"}) {
    const std::vector<int32_t> labels = {2, -100, 3};
    LossGraph ref;
    build(&ref, kLogits, labels, reduction);
    Interpreter r(ref.g);
    r.run();
    Graph g;
    const TensorId logits = g.add_parameter("logits", TensorRole::Activation, DType::F32, {3, 4},
                                            std::make_shared<HostArray>(kLogits));
    const TensorId lab = g.add_parameter("labels", TensorRole::Label, DType::I32, {3},
                                         std::make_shared<HostArray>(labels));
    const TensorId dlogits =
        g.add(OpType::SoftmaxCeBwd, "dloss", OpCategory::ActivationGrad, {logits, lab},
              Attrs{{"reduction", std::string(reduction)}, {"in_place", int64_t{1}}});
    const TensorId loss = g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {logits, lab},
                                Attrs{{"reduction", std::string(reduction)}});
    EXPECT_EQ(g.tensor(dlogits).data, g.tensor(logits).data);
    EXPECT_TRUE(g.writes_in_place(g.op(g.find_op("dloss"))));
    Interpreter it(g);
    it.run();
    EXPECT_EQ(it.value(loss).f32(), r.value(ref.loss).f32()) << reduction;
    EXPECT_EQ(it.value(dlogits).f32(), r.value(ref.dlogits).f32()) << reduction;
  }
  Graph g;
  const TensorId logits = g.add_parameter("logits", TensorRole::Activation, DType::F32, {3, 4});
  const TensorId lab = g.add_parameter("labels", TensorRole::Label, DType::I32, {3});
  EXPECT_EQ(user_error([&] {
              g.add(OpType::SoftmaxCeBwd, "ceb", OpCategory::ActivationGrad, {logits, lab},
                    Attrs{{"in_place", int64_t{2}}});
            }),
            "shape inference: op 'ceb' (softmax_ce_bwd): attribute 'in_place' must be 0 or 1, "
            "not 2");
}

}  // namespace
}  // namespace s2::ir
