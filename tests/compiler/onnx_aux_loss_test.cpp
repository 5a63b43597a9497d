// Models with auxiliary classifiers (GoogLeNet's and Inception-v3's training-mode outputs):
// the importer puts a softmax cross-entropy on every output and trains on the first output's
// plus the auxiliary weight times each other's; autodiff seeds that sum with a constant
// gradient 1, which reaches each term's softmax_ce_bwd as its dloss. The gradients match
// central finite differences of the summed loss; the errors name the option or the output.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/onnx_import.h"
#include "isa/common/errors.h"
#include "tests/compiler/onnx_error_fixture.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import {
namespace {

using testing::TestModel;

class OnnxAuxLoss : public testing::OnnxImportError {
 protected:
  // x[2,6] -> Gemm(fc.weight [4,6]) -> logits, and one Gemm(auxK.weight) per auxiliary output
  // auxK_logits [2, aux_classes].
  static TestModel model(int aux_outputs, int64_t aux_classes = 4) {
    TestModel m;
    m.input("x", {2, 6});
    m.initializer("fc.weight", {4, 6});
    testing::attr_i(m.node("Gemm", "/fc/Gemm", {"x", "fc.weight"}, {"logits"}), "transB", 1);
    m.output("logits", {2, 4});
    for (int k = 1; k <= aux_outputs; ++k) {
      const std::string aux = "aux" + std::to_string(k);
      std::vector<float> values(static_cast<size_t>(aux_classes * 6));
      for (size_t i = 0; i < values.size(); ++i)
        values[i] = 0.1f * static_cast<float>(k) - testing::pattern_value(i + 7);
      m.initializer(aux + ".weight", {aux_classes, 6}, values);
      testing::attr_i(
          m.node("Gemm", "/" + aux + "/Gemm", {"x", aux + ".weight"}, {aux + "_logits"}), "transB",
          1);
      m.output(aux + "_logits", {2, aux_classes});
    }
    return m;
  }

  ir::Graph import(const TestModel& m, double aux_weight = -1.0) {
    m.write(path_);
    OnnxImportOptions options;
    options.seed = 3;
    options.aux_loss_weight = aux_weight;
    ir::Graph g = import_onnx(path_, options);
    EXPECT_EQ(ir::verify_graph(g), std::vector<std::string>{});
    return g;
  }
};

float value_of(const ir::Graph& g, const std::string& tensor) {
  ir::Interpreter it(g);
  it.run();
  return it.value(g.find_tensor(tensor)).f32()[0];
}

TEST_F(OnnxAuxLoss, OneOutputKeepsTheSingleLoss) {
  const ir::Graph g = import(model(0));
  EXPECT_EQ(g.tensor(g.loss()).name, "loss");
  EXPECT_EQ(g.op(g.tensor(g.loss()).producer).type, ir::OpType::SoftmaxCe);
}

// Inception-v3's shape: one auxiliary output, weighted 0.4 by default.
TEST_F(OnnxAuxLoss, OneAuxiliaryOutputIsWeightedPointFour) {
  const ir::Graph g = import(model(1));
  const ir::Op& sum = g.op(g.tensor(g.loss()).producer);
  EXPECT_EQ(g.tensor(g.loss()).name, "loss");
  EXPECT_EQ(sum.type, ir::OpType::Add);
  const ir::Op& main = g.op(g.find_op("loss/logits"));
  EXPECT_EQ(main.type, ir::OpType::SoftmaxCe);
  EXPECT_EQ(sum.inputs[0], main.outputs[0]);
  const ir::Op& weighted = g.op(g.find_op("loss/aux1_logits.weighted"));
  EXPECT_EQ(weighted.type, ir::OpType::Scale);
  EXPECT_DOUBLE_EQ(weighted.attrs.f("alpha"), 0.4);
  EXPECT_EQ(sum.inputs[1], weighted.outputs[0]);
  // Both terms read the same labels.
  EXPECT_EQ(main.inputs[1], g.op(g.find_op("loss/aux1_logits")).inputs[1]);
  ir::Interpreter it(g);
  it.run();
  const float ce_main = it.value(g.find_tensor("loss/logits")).f32()[0];
  const float ce_aux = it.value(g.find_tensor("loss/aux1_logits")).f32()[0];
  EXPECT_EQ(it.value(g.loss()).f32()[0], ce_main + 0.4f * ce_aux);
}

// GoogLeNet's shape: two auxiliary outputs, 0.3 each by default, summed in output order;
// --aux-loss-weight replaces the weight.
TEST_F(OnnxAuxLoss, TwoAuxiliaryOutputsAreWeightedPointThreeOrAsAsked) {
  const ir::Graph g = import(model(2));
  EXPECT_DOUBLE_EQ(g.op(g.find_op("loss/aux1_logits.weighted")).attrs.f("alpha"), 0.3);
  EXPECT_DOUBLE_EQ(g.op(g.find_op("loss/aux2_logits.weighted")).attrs.f("alpha"), 0.3);
  const ir::Op& sum = g.op(g.tensor(g.loss()).producer);
  EXPECT_EQ(g.tensor(sum.inputs[0]).name, "loss.partial");
  const ir::Graph half = import(model(2), 0.5);
  EXPECT_DOUBLE_EQ(half.op(half.find_op("loss/aux2_logits.weighted")).attrs.f("alpha"), 0.5);
  const ir::Graph none = import(model(2), 0.0);
  EXPECT_EQ(value_of(none, "loss"), value_of(none, "loss/logits"));
}

// The training step's gradients of the summed loss, against central differences of the
// summed loss in the interpreter (f32, so a loose tolerance).
TEST_F(OnnxAuxLoss, GradientsOfTheWeightedSumMatchFiniteDifferences) {
  const TestModel m = model(2);
  const ir::Graph forward = import(m, 0.7);
  ir::Graph step = import(m, 0.7);
  ir::build_training_step(step, ir::OptimizerOptions{"sgd", 1.0, 0.0, 0.0});
  EXPECT_EQ(ir::verify_graph(step), std::vector<std::string>{});
  int seeded = 0;
  for (size_t i = 0; i < step.num_ops(); ++i) {
    const ir::Op& op = step.op(ir::OpId(i));
    if (op.type != ir::OpType::SoftmaxCeBwd) continue;
    ++seeded;
    EXPECT_TRUE(op.inputs.at(2).valid()) << op.name << " has no dloss";
  }
  EXPECT_EQ(seeded, 3);
  ir::Interpreter it(step);
  it.run();
  for (size_t i = 0; i < step.num_ops(); ++i) {
    const ir::Op& sgd = step.op(ir::OpId(i));
    if (sgd.type != ir::OpType::Sgd) continue;
    const std::string name = step.tensor(sgd.inputs[0]).name;
    SCOPED_TRACE(name);
    const std::vector<float> analytic = it.value(sgd.inputs[1]).f32();
    const ir::TensorId w = forward.find_tensor(name);
    const std::vector<float> w0 = forward.data(forward.tensor(w).data).init->f32();
    double worst = 0.0, scale = 0.0;
    for (size_t k = 0; k < w0.size(); ++k) {
      const float eps = 1e-2f;
      auto loss_at = [&](float delta) {
        std::vector<float> v = w0;
        v[k] += delta;
        ir::Interpreter f(forward);
        f.set_value(w, ir::HostArray(v));
        f.run();
        return static_cast<double>(f.value(forward.loss()).f32()[0]);
      };
      const double numeric = (loss_at(eps) - loss_at(-eps)) / (2.0 * static_cast<double>(eps));
      worst = std::max(worst, std::fabs(numeric - static_cast<double>(analytic[k])));
      scale = std::max(scale, std::fabs(numeric));
    }
    EXPECT_GT(scale, 1e-3);
    EXPECT_LT(worst / scale, 1e-2);
  }
}

TEST_F(OnnxAuxLoss, ErrorsNameTheOptionOrTheOutput) {
  EXPECT_EQ(error_of(model(0),
                     [] {
                       OnnxImportOptions o;
                       o.aux_loss_weight = 0.3;
                       return o;
                     }()),
            at_file("--aux-loss-weight was given, but the graph has one output and no auxiliary "
                    "classifier (export GoogLeNet or Inception-v3 with scripts/export_onnx.py "
                    "--aux-logits)"));
  EXPECT_EQ(error_of(model(1, 5)),
            at_file("output 'aux1_logits' has 5 columns and the first output 'logits' 4: a "
                    "model with several outputs trains on each as logits of the same classes "
                    "(the main classifier's first, then auxiliary classifiers')"));
}

}  // namespace
}  // namespace s2::onnx_import
