// The graph passes beyond their text: the text tests of every pass (input IR -> output IR)
// are lit tests, tests/lit/passes/<pass>/*.s2ir (docs/compiler.md, "Testing a pass"). Here:
// the `changed` flag against those texts, folded values against the interpreter, shape
// inference's errors on graphs the parser would reject, and a training step whose numbers the
// passes leave bit for bit as they were.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/algebraic_simplify.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/shape_inference.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

using PassFn = PassResult (*)(const Graph&);

std::string problems_text(const Graph& g) {
  std::string s;
  for (const std::string& p : verify_graph(g))
    s += "\n  " + p;
  return s;
}

// ---- the lit inputs: `changed` says whether the text changed ----

TEST(PassesLitInputs, ChangedIsTrueExactlyWhenTheTextChanges) {
  const std::pair<const char*, PassFn> passes[] = {{"dce", dead_code_elimination},
                                                   {"cse", common_subexpression_elimination},
                                                   {"fold", constant_folding},
                                                   {"simplify", algebraic_simplify},
                                                   {"shape-inference", shape_inference}};
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const auto& [name, pass] : passes) {
    const fs::path dir = fs::path(S2_SOURCE_DIR) / "tests/lit/passes" / name;
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      const Graph g = parse_graph(text.str(), e.path().string());
      const PassResult r = pass(g);
      EXPECT_EQ(problems_text(r.graph), "") << e.path();
      EXPECT_FALSE(r.summary.empty()) << e.path();
      EXPECT_EQ(r.changed, print_graph(r.graph) != print_graph(g)) << e.path();
      ++files;
    }
  }
  EXPECT_GE(files, 18u);
}

// ---- graph building ----

// Small exact values that differ from element to element.
std::shared_ptr<HostArray> pattern(int64_t n, float scale = 0.125f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 37) % 17) - 8) * scale;
  return std::make_shared<HostArray>(std::move(v));
}

TensorId param(Graph& g, const std::string& name, TensorRole role, const Shape& shape) {
  return g.add_parameter(name, role, DType::F32, shape, pattern(shape_numel(shape)));
}

TensorId constant(Graph& g, const std::string& name, const Shape& shape, float value) {
  auto init = std::make_shared<HostArray>(
      std::vector<float>(static_cast<size_t>(shape_numel(shape)), value));
  return g.add_parameter(name, TensorRole::Scratch, DType::F32, shape, init, true);
}

TensorId labels(Graph& g, int64_t n, int32_t classes) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<int32_t>(i) % classes;
  return g.add_parameter("labels", TensorRole::Label, DType::I32, {n},
                         std::make_shared<HostArray>(std::move(v)));
}

constexpr OpCategory kFwd = OpCategory::Forward;
const Attrs kLinear{{"trans_b", int64_t{1}}};
Attrs scale_by(double alpha, double beta = 0.0) {
  return Attrs{{"alpha", alpha}, {"beta", beta}};
}
Attrs shape_attr(Shape s) {
  return Attrs{{"shape", std::move(s)}};
}
Attrs perm_attr(Shape p) {
  return Attrs{{"perm", std::move(p)}};
}

// x [4,8] -> Linear(8,16) -> relu -> Linear(16,3) -> softmax_ce. `hidden` may insert ops
// between the relu and the second Linear; it returns the tensor the second Linear reads.
template <typename Hidden>
Graph mlp(const std::string& name, Hidden hidden) {
  Graph g(name);
  const TensorId x = param(g, "x", TensorRole::Input, {4, 8});
  const TensorId y = labels(g, 4, 3);
  const TensorId w1 = param(g, "fc1.weight", TensorRole::Weight, {16, 8});
  const TensorId b1 = param(g, "fc1.bias", TensorRole::Weight, {16});
  const TensorId w2 = param(g, "fc2.weight", TensorRole::Weight, {3, 16});
  const TensorId b2 = param(g, "fc2.bias", TensorRole::Weight, {3});
  const TensorId h = g.add(OpType::Gemm, "fc1", kFwd, {x, w1, b1}, kLinear);
  const TensorId r = hidden(g, g.add(OpType::Relu, "relu", kFwd, {h}));
  const TensorId logits = g.add(OpType::Gemm, "fc2", kFwd, {r, w2, b2}, kLinear);
  g.set_loss(g.add(OpType::SoftmaxCe, "loss", kFwd, {logits, y}));
  g.mark_output(g.loss());
  return g;
}

Graph plain_mlp() {
  return mlp("mlp", [](Graph&, TensorId r) { return r; });
}

Graph training_step(Graph g) {
  build_training_step(g, OptimizerOptions{"sgd", 0.05, 0.9, 1e-3});
  return g;
}

// ---- constant folding ----

// The folded contents are the interpreter's, bit for bit (lit shows them as text).
TEST(PassesConstantFolding, FoldedChainHoldsTheInterpretersValues) {
  Graph g("chain");
  const TensorId x = param(g, "x", TensorRole::Input, {2, 3});
  const TensorId c1 = constant(g, "c1", {2, 3}, 1.5f);
  const TensorId c2 =
      g.add_parameter("c2", TensorRole::Scratch, DType::F32, {2, 3}, pattern(6), true);
  const TensorId sum = g.add(OpType::Add, "sum", kFwd, {c1, c2});
  const TensorId scaled = g.add(OpType::Scale, "scaled", kFwd, {sum}, scale_by(2.0, -1.0));
  const TensorId relu = g.add(OpType::Relu, "relu", kFwd, {scaled});
  g.mark_output(g.add(OpType::Mul, "y", kFwd, {x, relu}));
  const PassResult r = constant_folding(g);
  ASSERT_EQ(problems_text(r.graph), "");
  EXPECT_EQ(r.summary, "folded 3 ops into constants");
  const Data& folded = r.graph.data(r.graph.tensor(r.graph.find_tensor("relu")).data);
  ASSERT_TRUE(folded.constant && folded.init);
  Interpreter it(g);
  it.run();
  EXPECT_EQ(*folded.init, it.value(relu));
}

TEST(PassesConstantFolding, FoldedViewsHoldTheInterpretersValues) {
  Graph g("views");
  const TensorId c =
      g.add_parameter("c", TensorRole::Scratch, DType::F32, {2, 3}, pattern(6), true);
  const TensorId t = g.add(OpType::Transpose, "t", kFwd, {c}, perm_attr({1, 0}));
  const TensorId s = g.add(OpType::Slice, "s", kFwd, {t},
                           Attrs{{"axis", int64_t{0}}, {"start", int64_t{1}}, {"end", int64_t{3}}});
  const TensorId sum = g.add(OpType::ReduceSum, "sum", kFwd, {s}, Attrs{{"axes", Shape{1}}});
  g.mark_output(s);
  g.mark_output(sum);
  const PassResult r = constant_folding(g);
  ASSERT_EQ(problems_text(r.graph), "");
  Interpreter it(g);
  it.run();
  for (const char* name : {"t", "s", "sum"}) {
    const Tensor& folded = r.graph.tensor(r.graph.find_tensor(name));
    EXPECT_TRUE(folded.contiguous() && !folded.producer.valid()) << name;
    EXPECT_EQ(*r.graph.data(folded.data).init, it.value(g.find_tensor(name))) << name;
  }
}

// ---- shape inference ----

std::string shape_error(const Graph& g) {
  try {
    shape_inference(g);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PassesShapeInference, MismatchesAreUserErrorsNamingOpAndShapes) {
  Graph g = plain_mlp();
  g.mutable_tensor(g.find_tensor("fc2")).shape = {4, 2};  // softmax_ce still accepts it
  g.mutable_tensor(g.find_tensor("fc2")).strides = {2, 1};
  EXPECT_EQ(shape_error(g),
            "graph 'mlp': shape inference found 1 problem(s):\n"
            "  op 'fc2' (gemm), output 'y' %fc2 is f32[4,2], shape inference gives f32[4,3]");

  Graph v("view");
  const TensorId x = param(v, "x", TensorRole::Input, {2, 3});
  const TensorId t = v.add(OpType::Transpose, "t", kFwd, {x}, perm_attr({1, 0}));
  v.mutable_tensor(t).strides = {3, 1};
  EXPECT_EQ(shape_error(v),
            "graph 'view': shape inference found 1 problem(s):\n"
            "  op 't' (transpose), output 'y' %t has strides [3,1] offset 0, shape inference "
            "gives strides [1,3] offset 0");
}

TEST(PassesShapeInference, StopsAtTheFirstRejectedOp) {
  Graph g = plain_mlp();
  // relu's output is wrong, and fc2, reading it, no longer sees agreeing inner dimensions.
  g.mutable_tensor(g.find_tensor("relu")).shape = {4, 8};
  g.mutable_tensor(g.find_tensor("relu")).strides = {8, 1};
  const std::string message = shape_error(g);
  EXPECT_EQ(message.rfind("graph 'mlp': shape inference found 2 problem(s):\n"
                          "  op 'relu' (relu), output 'y' %relu is f32[4,8], shape inference "
                          "gives f32[4,16]\n"
                          "  shape inference: op 'fc2' (gemm): inner dimensions differ",
                          0),
            0u)
      << message;
  EXPECT_EQ(message.find("loss"), std::string::npos) << message;
}

// ---- the passes keep the numbers ----

// An mlp with something for every pass: a foldable constant branch, identities, duplicates,
// and the dead ops they leave behind (in the forward and in the backward autodiff derives).
Graph redundant_mlp() {
  return mlp("redundant", [](Graph& g, TensorId r) {
    const TensorId zeros = constant(g, "zeros", {4, 16}, 0.0f);
    const TensorId folded_zeros =
        g.add(OpType::Scale, "folded_zeros", kFwd, {zeros}, scale_by(3.0));
    const TensorId folded_ones =
        g.add(OpType::Scale, "folded_ones", kFwd, {zeros}, scale_by(1.0, 1.0));
    const TensorId h = g.find_tensor("fc1");
    const TensorId r2 = g.add(OpType::Relu, "relu_dup", kFwd,
                              {g.add(OpType::Scale, "id", kFwd, {h}, scale_by(1.0))});
    TensorId t = g.add(OpType::Add, "twice", kFwd, {r, r2});
    t = g.add(OpType::Add, "plus_zero", kFwd, {t, folded_zeros});
    t = g.add(OpType::Mul, "times_one", kFwd, {folded_ones, t});
    t = g.add(OpType::Reshape, "flat", kFwd, {t}, shape_attr({64}));
    t = g.add(OpType::Reshape, "unflat", kFwd, {t}, shape_attr({4, 16}));
    t = g.add(OpType::Transpose, "tr", kFwd, {t}, perm_attr({1, 0}));
    t = g.add(OpType::Transpose, "tr_back", kFwd, {t}, perm_attr({1, 0}));
    return g.add(OpType::Relu, "relu_relu", kFwd, {g.add(OpType::Relu, "relu2", kFwd, {t})});
  });
}

TEST(PassesPipeline, TrainingStepResultsAreBitIdentical) {
  const Graph step = training_step(redundant_mlp());
  ASSERT_EQ(problems_text(step), "");
  Graph g = step;
  const std::pair<const char*, PassFn> passes[] = {{"shape_inference", shape_inference},
                                                   {"constant_folding", constant_folding},
                                                   {"algebraic_simplify", algebraic_simplify},
                                                   {"cse", common_subexpression_elimination},
                                                   {"dce", dead_code_elimination}};
  for (const auto& [name, pass] : passes) {
    PassResult r = pass(g);
    ASSERT_EQ(problems_text(r.graph), "") << "after " << name;
    g = std::move(r.graph);
  }
  EXPECT_LT(g.num_ops() + 10, step.num_ops()) << print_graph(g);

  Interpreter before(step), after(g);
  before.run();
  after.run();
  auto bits = [](const HostArray& a) {
    std::vector<uint32_t> b(a.size());
    std::memcpy(b.data(), a.f32().data(), b.size() * sizeof(uint32_t));
    return b;
  };
  EXPECT_EQ(bits(before.value(step.loss())), bits(after.value(g.loss())));
  for (const char* w : {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc1.weight.velocity",
                        "fc2.bias.velocity"}) {
    ASSERT_TRUE(g.find_tensor(w).valid()) << w;
    EXPECT_EQ(bits(before.value(step.find_tensor(w))), bits(after.value(g.find_tensor(w)))) << w;
  }
  EXPECT_NE(bits(before.value(step.find_tensor("fc1.weight"))),
            bits(Interpreter(step).value(step.find_tensor("fc1.weight"))));  // it did train
}

}  // namespace
}  // namespace s2::ir
