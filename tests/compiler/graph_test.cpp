// Graph construction, topological order with in-place writes, the printer and the verifier.
#include <gtest/gtest.h>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

std::shared_ptr<HostArray> values(std::vector<float> v) {
  return std::make_shared<HostArray>(std::move(v));
}

// x [2,3] -> gemm with w [4,3] (Linear) -> relu -> gemm with w2 [2,4] -> softmax_ce.
Graph tiny_mlp() {
  Graph g("tiny");
  const TensorId x = g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3},
                                     values({0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f}));
  const TensorId w = g.add_parameter(
      "w", TensorRole::Weight, DType::F32, {4, 3},
      values({0.1f, -0.2f, 0.3f, 0.4f, 0.5f, -0.6f, 0.7f, 0.8f, 0.9f, -0.1f, 0.2f, 0.3f}));
  const TensorId w2 = g.add_parameter("w2", TensorRole::Weight, DType::F32, {2, 4},
                                      values({0.3f, -0.1f, 0.2f, 0.5f, -0.4f, 0.6f, 0.1f, -0.2f}));
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {2},
                                          std::make_shared<HostArray>(std::vector<int32_t>{1, 0}));
  const TensorId h =
      g.add(OpType::Gemm, "fc1", OpCategory::Forward, {x, w}, {{"trans_b", int64_t{1}}});
  const TensorId r = g.add(OpType::Relu, "relu", OpCategory::Forward, {h});
  const TensorId logits =
      g.add(OpType::Gemm, "fc2", OpCategory::Forward, {r, w2}, {{"trans_b", int64_t{1}}});
  g.set_loss(g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {logits, labels}));
  return g;
}

TEST(Graph, ParametersAndOutputs) {
  const Graph g = tiny_mlp();
  EXPECT_EQ(g.num_ops(), 4u);
  const Tensor& h = g.tensor(g.find_tensor("fc1"));
  EXPECT_EQ(h.shape, (Shape{2, 4}));
  EXPECT_EQ(h.strides, (Shape{4, 1}));
  EXPECT_EQ(g.data(h.data).role, TensorRole::Activation);
  EXPECT_TRUE(verify_graph(g).empty());
}

// unique_name() resumes its search where the last one for the same base stopped (N ops of one
// ONNX node name cost O(N)), and answers exactly as a search from 2 would: a name is taken only
// once added, and suffixes filled in out of order are skipped.
TEST(Graph, UniqueNamesCountUpFromTheLastFound) {
  Graph g = tiny_mlp();
  EXPECT_EQ(g.unique_name("relu2"), "relu2");
  EXPECT_EQ(g.unique_name("relu"), "relu_2");
  EXPECT_EQ(g.unique_name("relu"), "relu_2");  // not taken until added
  const TensorId fc1 = g.find_tensor("fc1");
  g.add(OpType::Relu, "relu_2", OpCategory::Forward, {fc1});
  g.add(OpType::Relu, "relu_4", OpCategory::Forward, {fc1});
  EXPECT_EQ(g.unique_name("relu"), "relu_3");
  g.add(OpType::Relu, g.unique_name("relu"), OpCategory::Forward, {fc1});
  EXPECT_EQ(g.unique_name("relu"), "relu_5");
  // Tensor names count too (the op "fc1" made the tensor "fc1").
  EXPECT_EQ(g.unique_name("fc1"), "fc1_2");
}

TEST(Graph, PrinterIsStable) {
  const Graph g = tiny_mlp();
  const std::string text = print_graph(g);
  EXPECT_EQ(text, print_graph(g));
  EXPECT_NE(text.find("%x: f32[2,3] input init"), std::string::npos) << text;
  EXPECT_NE(text.find("%fc1: f32[2,4] = gemm(%x, %w, _, _, _) act=\"none\" gate_act=\"relu\" "
                      "keep_pre=0 trans_a=0 trans_b=1  "
                      "# forward"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("loss %loss"), std::string::npos) << text;
}

TEST(Graph, TrainingStepOrdersUpdatesAfterReaders) {
  Graph g = tiny_mlp();
  const AutodiffStats stats = build_training_step(g, OptimizerOptions{"sgd", 0.1, 0.9, 0.0});
  EXPECT_EQ(stats.updates, 2u);
  EXPECT_TRUE(verify_graph(g).empty());
  // Every reader of w (fc1 forward; nothing else reads w here) precedes w's update, and
  // every reader of w2 (fc2, and the backward of fc2 to relu's output) precedes w2's update.
  const std::vector<OpId> order = g.topo_order();
  auto position = [&](const std::string& name) {
    for (size_t i = 0; i < order.size(); ++i)
      if (g.op(order[i]).name == name) return i;
    ADD_FAILURE() << "no op " << name;
    return size_t{0};
  };
  const auto users = g.consumers();
  for (const char* weight : {"w", "w2"}) {
    const size_t update = position(std::string(weight) + ".sgd");
    for (OpId reader : users[g.find_tensor(weight).index()]) {
      if (g.op(reader).type == OpType::Sgd) continue;
      EXPECT_LT(position(g.op(reader).name), update) << g.op(reader).name;
    }
  }
}

// topo_order() from flat arrays against Kahn's algorithm restated on predecessors(): the same
// order on a training step (in-place weight updates) and on ops that read one tensor twice.
TEST(Graph, TopoOrderIsKahnOverPredecessors) {
  auto reference = [](const Graph& g) {
    const std::vector<std::vector<OpId>> pred = g.predecessors();
    std::vector<size_t> waiting(g.num_ops());
    for (size_t i = 0; i < pred.size(); ++i)
      waiting[i] = pred[i].size();
    std::vector<OpId> order;
    std::vector<bool> done(g.num_ops(), false);
    while (order.size() < g.num_ops()) {
      size_t next = g.num_ops();
      for (size_t i = 0; i < g.num_ops() && next == g.num_ops(); ++i)
        if (!done[i] && waiting[i] == 0) next = i;
      if (next == g.num_ops()) break;  // a cycle
      done[next] = true;
      order.push_back(OpId(next));
      for (size_t i = 0; i < pred.size(); ++i)
        for (OpId p : pred[i])
          if (p.index() == next) --waiting[i];
    }
    return order;
  };
  Graph step = tiny_mlp();
  build_training_step(step, OptimizerOptions{"sgd", 0.1, 0.9, 0.0});
  Graph twice("twice");
  const TensorId x = twice.add_parameter("x", TensorRole::Input, DType::F32, {2, 2},
                                         values({1.0f, 2.0f, 3.0f, 4.0f}));
  const TensorId y = twice.add(OpType::Mul, "square", OpCategory::Forward, {x, x});
  const TensorId z = twice.add(OpType::Add, "double", OpCategory::Forward, {y, y});
  twice.mark_output(twice.add(OpType::Mul, "mix", OpCategory::Forward, {z, y}));
  for (const Graph* g : {&step, &twice}) {
    SCOPED_TRACE(g->name());
    const std::vector<OpId> order = g->topo_order();
    EXPECT_EQ(order, reference(*g));
    EXPECT_EQ(order.size(), g->num_ops());
  }
}

TEST(Graph, VerifierNamesTheBrokenNode) {
  Graph g = tiny_mlp();
  g.mutable_tensor(g.find_tensor("fc1")).shape = {2, 5};
  const std::vector<std::string> problems = verify_graph(g);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("fc1"), std::string::npos) << problems[0];
  EXPECT_THROW(verify_or_throw(g, "after pass 'test'"), InternalError);
}

TEST(Graph, ShapeErrorsNameTheOp) {
  Graph g("bad");
  const TensorId a = g.add_parameter("a", TensorRole::Input, DType::F32, {2, 3});
  const TensorId b = g.add_parameter("b", TensorRole::Input, DType::F32, {4, 5});
  try {
    g.add(OpType::Gemm, "mm", OpCategory::Forward, {a, b});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("op 'mm' (gemm)"), std::string::npos) << e.what();
  }
}

TEST(Autodiff, ForkSumsGradients) {
  // y = relu(x . w^T); z = y + y feeds the loss head: y's gradient is the sum of two.
  Graph g("fork");
  const TensorId x = g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3},
                                     values({0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f}));
  const TensorId w = g.add_parameter("w", TensorRole::Weight, DType::F32, {2, 3},
                                     values({0.1f, -0.2f, 0.3f, 0.4f, 0.5f, -0.6f}));
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {2},
                                          std::make_shared<HostArray>(std::vector<int32_t>{1, 0}));
  const TensorId y =
      g.add(OpType::Gemm, "fc", OpCategory::Forward, {x, w}, {{"trans_b", int64_t{1}}});
  const TensorId r = g.add(OpType::Relu, "relu", OpCategory::Forward, {y});
  const TensorId z = g.add(OpType::Add, "twice", OpCategory::Forward, {r, y});
  g.set_loss(g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {z, labels}));
  const AutodiffStats stats = build_training_step(g, OptimizerOptions{"sgd", 0.1, 0.0, 0.0});
  EXPECT_EQ(stats.accumulations, 1u);  // y gets one gradient through relu, one directly
  EXPECT_TRUE(verify_graph(g).empty());
  Interpreter it(g);
  it.run();
  EXPECT_GT(it.value(g.loss()).f32()[0], 0.0f);
}

TEST(Autodiff, OpWithoutBackwardRuleFailsLoudly) {
  Graph g("noback");
  const TensorId x = g.add_parameter("x", TensorRole::Weight, DType::F32, {2, 3});
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {2});
  // relu_bwd has no backward rule (no second derivatives).
  const TensorId s = g.add(OpType::ReluBwd, "cut", OpCategory::Forward, {x, x});
  g.set_loss(g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {s, labels}));
  try {
    build_training_step(g, OptimizerOptions{});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("op 'cut' (relu_bwd) has no backward rule"),
              std::string::npos)
        << e.what();
  }
}

TEST(Autodiff, NoLossIsAUserError) {
  Graph g("noloss");
  g.add_parameter("x", TensorRole::Weight, DType::F32, {2});
  EXPECT_THROW(build_training_step(g, OptimizerOptions{}), UserError);
}

}  // namespace
}  // namespace s2::ir
