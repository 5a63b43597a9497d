// Golden text tests of the graph passes (STYLE.md: IR in -> IR out), their error paths, and
// a check that the passes leave a training step's numbers bit for bit as they were.
//
// The IR has no text parser, so each case builds its input graph in C++; the test asserts
// that the printed input equals <case>.in.txt and the printed result <case>.out.txt, under
// tests/compiler/golden/passes/<pass>/. S2_UPDATE_GOLDEN=1 rewrites the files instead
// (tests/compiler/golden/README.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
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

// ---- golden files ----

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// A line diff by longest common subsequence: "  " kept, "- " golden only, "+ " actual only.
std::string line_diff(const std::string& golden, const std::string& actual) {
  const std::vector<std::string> a = lines_of(golden), b = lines_of(actual);
  std::vector<std::vector<size_t>> lcs(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;)
    for (size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::string out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      out += "  " + a[i++] + "\n";
      ++j;
    } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out += "+ " + b[j++] + "\n";
    } else {
      out += "- " + a[i++] + "\n";
    }
  }
  return out;
}

void expect_golden(const std::string& relative, const std::string& actual) {
  const std::string path = std::string(S2_SOURCE_DIR) + "/tests/compiler/golden/passes/" + relative;
  const char* update = std::getenv("S2_UPDATE_GOLDEN");
  if (update != nullptr && std::strcmp(update, "1") == 0) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "golden file " << path << " is missing; create it with S2_UPDATE_GOLDEN=1";
    return;
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  const std::string golden = contents.str();
  if (golden != actual)
    ADD_FAILURE() << "output differs from " << path << " (- golden, + actual):\n"
                  << line_diff(golden, actual)
                  << "If the new output is right, regenerate the golden files with\n"
                     "  S2_UPDATE_GOLDEN=1 compiler_tests --gtest_filter='Passes*'\n"
                     "and review the change with git diff.";
}

std::string problems_text(const Graph& g) {
  std::string s;
  for (const std::string& p : verify_graph(g))
    s += "\n  " + p;
  return s;
}

// Checks input and output against <pass>/<name>.{in,out}.txt, and that both verify.
PassResult run_golden(const std::string& pass, const std::string& name, const Graph& in,
                      PassFn fn) {
  EXPECT_EQ(problems_text(in), "") << "input of " << pass << "/" << name;
  expect_golden(pass + "/" + name + ".in.txt", print_graph(in));
  PassResult result = fn(in);
  EXPECT_EQ(problems_text(result.graph), "") << "after " << pass << " on " << name;
  expect_golden(pass + "/" + name + ".out.txt", print_graph(result.graph));
  EXPECT_FALSE(result.summary.empty());
  if (!result.changed) {
    EXPECT_EQ(print_graph(result.graph), print_graph(in));
  }
  return result;
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
  build_training_step(g, SgdOptions{0.05, 0.9, 1e-3});
  return g;
}

// ---- dead-code elimination ----

TEST(PassesDce, RemovesDeadOpsTensorsAndConstants) {
  Graph g = mlp("dead_branch", [](Graph& gr, TensorId r) {
    const TensorId unused = constant(gr, "unused_constant", {4, 16}, 1.0f);
    const TensorId v = gr.add(OpType::Reshape, "dead_view", kFwd, {r}, shape_attr({64}));
    gr.add(OpType::Mul, "dead_mul", kFwd, {r, unused});
    gr.add(OpType::Scale, "dead_scale", kFwd, {v}, scale_by(2.0));
    return r;
  });
  param(g, "unused.weight", TensorRole::Weight, {2, 2});  // stays: part of the interface
  const PassResult r = run_golden("dce", "dead_branch", g, dead_code_elimination);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.graph.num_ops(), 4u);
  EXPECT_FALSE(r.graph.find_tensor("unused_constant").valid());
  EXPECT_TRUE(r.graph.find_tensor("unused.weight").valid());
}

TEST(PassesDce, NothingDeadReturnsUnchanged) {
  EXPECT_FALSE(run_golden("dce", "nothing_dead", plain_mlp(), dead_code_elimination).changed);
}

TEST(PassesDce, KeepsSideEffectsAndWholeOps) {
  Graph g = training_step(plain_mlp());
  // Dead after autodiff: a copy of a gradient nobody reads. The sgd updates have no users
  // but write weights and velocities in place, so they stay.
  g.add(OpType::Scale, "dead_grad_copy", OpCategory::ActivationGrad, {g.find_tensor("fc2.grad_a")},
        scale_by(0.5));
  const PassResult r = run_golden("dce", "training_step", g, dead_code_elimination);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.graph.num_ops(), g.num_ops() - 1);
  EXPECT_TRUE(r.graph.find_op("fc1.weight.sgd").valid());
}

TEST(PassesDce, KeepsUnusedOutputsOfLiveOps) {
  Graph g("pool");
  const TensorId x = param(g, "x", TensorRole::Input, {1, 2, 4, 4});
  const std::vector<TensorId> pooled =
      g.add_op(OpType::MaxPool2d, "pool", kFwd, {x},
               Attrs{{"kernel", Shape{2, 2}}, {"stride", Shape{2, 2}}});
  g.add(OpType::Relu, "dead_relu", kFwd, {pooled[0]});
  g.mark_output(pooled[0]);  // the indices have no reader, yet the pool keeps both outputs
  const PassResult r = run_golden("dce", "multi_output", g, dead_code_elimination);
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(r.graph.find_tensor("pool.indices").valid());
}

// ---- common-subexpression elimination ----

TEST(PassesCse, MergesChains) {
  Graph g = mlp("chain", [](Graph& gr, TensorId r) {
    const TensorId h = gr.find_tensor("fc1");
    const TensorId r2 = gr.add(OpType::Relu, "relu_again", kFwd, {h});
    const TensorId s1 = gr.add(OpType::Scale, "s1", kFwd, {r}, scale_by(2.0));
    const TensorId s2 = gr.add(OpType::Scale, "s2", kFwd, {r2}, scale_by(2.0));
    return gr.add(OpType::Add, "sum", kFwd, {s1, s2});
  });
  const PassResult r = run_golden("cse", "chain", g, common_subexpression_elimination);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.summary, "merged 2 ops");
}

TEST(PassesCse, DifferentAttributesOrInputsReturnUnchanged) {
  Graph g = mlp("distinct", [](Graph& gr, TensorId r) {
    const TensorId a = gr.add(OpType::Scale, "a", kFwd, {r}, scale_by(2.0));
    const TensorId b = gr.add(OpType::Scale, "b", kFwd, {r}, scale_by(3.0));
    const TensorId c = gr.add(OpType::Scale, "c", kFwd, {r}, scale_by(2.0, -0.0));  // -0 differs
    const TensorId d = gr.add(OpType::Add, "d", kFwd, {a, b});
    const TensorId e = gr.add(OpType::Add, "e", kFwd, {b, a});  // operand order counts
    return gr.add(OpType::Add, "f", kFwd, {gr.add(OpType::Add, "de", kFwd, {d, e}), c});
  });
  EXPECT_FALSE(run_golden("cse", "nothing_to_merge", g, common_subexpression_elimination).changed);
}

TEST(PassesCse, MergesViewsAndRebuildsViewsOfMergedOps) {
  Graph g("views");
  const TensorId x = param(g, "x", TensorRole::Input, {2, 6});
  const TensorId a = g.add(OpType::Relu, "a", kFwd, {x});
  const TensorId b = g.add(OpType::Relu, "b", kFwd, {x});
  const TensorId va = g.add(OpType::Reshape, "va", kFwd, {a}, shape_attr({3, 4}));
  const TensorId vb = g.add(OpType::Reshape, "vb", kFwd, {b}, shape_attr({3, 4}));
  const TensorId tb = g.add(OpType::Transpose, "tb", kFwd, {b}, perm_attr({1, 0}));
  for (TensorId t : {va, vb, tb})
    g.mark_output(t);
  const PassResult r = run_golden("cse", "views", g, common_subexpression_elimination);
  EXPECT_EQ(r.graph.outputs().size(), 2u);  // va and vb are one tensor now
  const Tensor& t = r.graph.tensor(r.graph.find_tensor("tb"));
  EXPECT_EQ(t.data, r.graph.tensor(r.graph.find_tensor("a")).data);
}

// ---- constant folding ----

TEST(PassesConstantFolding, FoldsChains) {
  Graph g("chain");
  const TensorId x = param(g, "x", TensorRole::Input, {2, 3});
  const TensorId c1 = constant(g, "c1", {2, 3}, 1.5f);
  const TensorId c2 =
      g.add_parameter("c2", TensorRole::Scratch, DType::F32, {2, 3}, pattern(6), true);
  const TensorId sum = g.add(OpType::Add, "sum", kFwd, {c1, c2});
  const TensorId scaled = g.add(OpType::Scale, "scaled", kFwd, {sum}, scale_by(2.0, -1.0));
  const TensorId relu = g.add(OpType::Relu, "relu", kFwd, {scaled});
  g.mark_output(g.add(OpType::Mul, "y", kFwd, {x, relu}));
  const PassResult r = run_golden("constant_folding", "chain", g, constant_folding);
  EXPECT_EQ(r.summary, "folded 3 ops into constants");
  const Data& folded = r.graph.data(r.graph.tensor(r.graph.find_tensor("relu")).data);
  ASSERT_TRUE(folded.constant && folded.init);
  Interpreter it(g);
  it.run();
  EXPECT_EQ(*folded.init, it.value(relu));
}

TEST(PassesConstantFolding, NonConstantInputsReturnUnchanged) {
  Graph g = mlp("not_constant", [](Graph& gr, TensorId r) {
    // A constant meets a computed value, and a weight is not a constant.
    const TensorId c = constant(gr, "c", {4, 16}, 2.0f);
    const TensorId w = param(gr, "w", TensorRole::Weight, {4, 16});
    return gr.add(
        OpType::Mul, "mul", kFwd,
        {gr.add(OpType::Add, "add", kFwd, {r, c}), gr.add(OpType::Relu, "wr", kFwd, {w})});
  });
  EXPECT_FALSE(run_golden("constant_folding", "nothing_to_fold", g, constant_folding).changed);
}

TEST(PassesConstantFolding, FoldsViewsIntoDenseConstants) {
  Graph g("views");
  const TensorId c =
      g.add_parameter("c", TensorRole::Scratch, DType::F32, {2, 3}, pattern(6), true);
  const TensorId t = g.add(OpType::Transpose, "t", kFwd, {c}, perm_attr({1, 0}));
  const TensorId s = g.add(OpType::Slice, "s", kFwd, {t},
                           Attrs{{"axis", int64_t{0}}, {"start", int64_t{1}}, {"end", int64_t{3}}});
  const TensorId sum = g.add(OpType::ReduceSum, "sum", kFwd, {s}, Attrs{{"axes", Shape{1}}});
  g.mark_output(s);
  g.mark_output(sum);
  const PassResult r = run_golden("constant_folding", "views", g, constant_folding);
  Interpreter it(g);
  it.run();
  for (const char* name : {"t", "s", "sum"}) {
    const Tensor& folded = r.graph.tensor(r.graph.find_tensor(name));
    EXPECT_TRUE(folded.contiguous() && !folded.producer.valid()) << name;
    EXPECT_EQ(*r.graph.data(folded.data).init, it.value(g.find_tensor(name))) << name;
  }
}

// ---- algebraic simplification ----

TEST(PassesAlgebraicSimplify, Identities) {
  Graph g = mlp("identities", [](Graph& gr, TensorId r) {
    const TensorId zeros = constant(gr, "zeros", {4, 16}, 0.0f);
    const TensorId ones = constant(gr, "ones", {4, 16}, 1.0f);
    TensorId t = gr.add(OpType::Scale, "id_scale", kFwd, {r}, scale_by(1.0));
    t = gr.add(OpType::Reshape, "same_shape", kFwd, {t}, shape_attr({4, -1}));
    t = gr.add(OpType::Transpose, "id_perm", kFwd, {t}, perm_attr({0, 1}));
    t = gr.add(OpType::Add, "plus_zero", kFwd, {zeros, t});
    t = gr.add(OpType::Mul, "times_one", kFwd, {t, ones});
    t = gr.add(OpType::Relu, "relu_relu", kFwd, {t});
    const TensorId z = gr.add(OpType::Mul, "times_zero", kFwd, {t, zeros});
    return gr.add(OpType::Add, "sum", kFwd, {t, z});
  });
  const PassResult r = run_golden("algebraic_simplify", "identities", g, algebraic_simplify);
  EXPECT_TRUE(r.changed);
  const Data& zero = r.graph.data(r.graph.tensor(r.graph.find_tensor("times_zero")).data);
  EXPECT_TRUE(zero.constant && zero.init && zero.init->f32() == std::vector<float>(64, 0.0f));
}

TEST(PassesAlgebraicSimplify, CombinesChains) {
  Graph g("chains");
  const TensorId x = param(g, "x", TensorRole::Input, {2, 3, 4});
  const TensorId s1 = g.add(OpType::Scale, "s1", kFwd, {x}, scale_by(2.0, 1.0));
  g.mark_output(g.add(OpType::Scale, "s2", kFwd, {s1}, scale_by(3.0, -0.5)));  // 6x + 2.5
  const TensorId h1 = g.add(OpType::Scale, "half", kFwd, {x}, scale_by(0.5));
  g.mark_output(g.add(OpType::Scale, "double", kFwd, {h1}, scale_by(2.0)));  // x
  const TensorId r1 = g.add(OpType::Reshape, "r1", kFwd, {x}, shape_attr({6, 4}));
  g.mark_output(g.add(OpType::Reshape, "r2", kFwd, {r1}, shape_attr({4, -1})));
  const TensorId t1 = g.add(OpType::Transpose, "t1", kFwd, {x}, perm_attr({1, 2, 0}));
  g.mark_output(g.add(OpType::Transpose, "t2", kFwd, {t1}, perm_attr({0, 2, 1})));
  g.mark_output(g.add(OpType::Transpose, "t3", kFwd, {t1}, perm_attr({2, 0, 1})));  // x again
  const PassResult r = run_golden("algebraic_simplify", "chains", g, algebraic_simplify);
  const Op& s2 = r.graph.op(r.graph.find_op("s2"));
  EXPECT_EQ(s2.attrs.f("alpha"), 6.0);
  EXPECT_EQ(s2.attrs.f("beta"), 2.5);
  EXPECT_EQ(r.graph.outputs()[1], r.graph.find_tensor("x"));
  EXPECT_EQ(r.graph.op(r.graph.find_op("t2")).attrs.ints("perm"), (Shape{1, 0, 2}));
}

TEST(PassesAlgebraicSimplify, NothingToSimplifyReturnsUnchanged) {
  Graph g = mlp("nothing", [](Graph& gr, TensorId r) {
    const TensorId twos = constant(gr, "twos", {4, 16}, 2.0f);
    TensorId t = gr.add(OpType::Scale, "s", kFwd, {r}, scale_by(1.0, 0.5));
    t = gr.add(OpType::Reshape, "flat", kFwd, {t}, shape_attr({64}));
    t = gr.add(OpType::Reshape, "back", kFwd, {gr.add(OpType::Relu, "r", kFwd, {t})},
               shape_attr({4, 16}));
    t = gr.add(OpType::Transpose, "tr", kFwd, {gr.add(OpType::Mul, "m", kFwd, {t, twos})},
               perm_attr({1, 0}));
    return gr.add(OpType::Transpose, "tr2", kFwd, {gr.add(OpType::Relu, "r2", kFwd, {t})},
                  perm_attr({1, 0}));
  });
  EXPECT_FALSE(
      run_golden("algebraic_simplify", "nothing_to_simplify", g, algebraic_simplify).changed);
}

TEST(PassesAlgebraicSimplify, KeepsCopiesThatDensifyOrSnapshot) {
  Graph g("guards");
  const TensorId x = param(g, "x", TensorRole::Input, {3, 4});
  // A strided view copied dense for a reshape: the copy is needed.
  const TensorId t = g.add(OpType::Transpose, "t", kFwd, {x}, perm_attr({1, 0}));
  const TensorId dense = g.add(OpType::Scale, "dense", kFwd, {t}, scale_by(1.0));
  g.mark_output(g.add(OpType::Reshape, "flat", kFwd, {dense}, shape_attr({12})));
  // A copy of a weight taken before its in-place update, read after it.
  const TensorId w = param(g, "w", TensorRole::Weight, {3, 4});
  const TensorId snapshot = g.add(OpType::Scale, "snapshot", kFwd, {w}, scale_by(1.0));
  const TensorId grad = param(g, "grad", TensorRole::Input, {3, 4});
  const TensorId updated =
      g.add_op(OpType::Sgd, "w.sgd", OpCategory::WeightUpdate, {w, grad}, Attrs{{"lr", 0.5}})[0];
  g.mark_output(g.add(OpType::Add, "delta", kFwd, {updated, snapshot}));
  EXPECT_FALSE(run_golden("algebraic_simplify", "guards", g, algebraic_simplify).changed);
}

TEST(PassesAlgebraicSimplify, RebuildsViewsOfBypassedOps) {
  Graph g("views");
  const TensorId x = param(g, "x", TensorRole::Input, {4, 6});
  const TensorId s = g.add(OpType::Slice, "rows", kFwd, {x},
                           Attrs{{"axis", int64_t{0}}, {"start", int64_t{2}}, {"end", int64_t{4}}});
  const TensorId copy = g.add(OpType::Scale, "copy", kFwd, {s}, scale_by(1.0));
  g.mark_output(g.add(OpType::Reshape, "flat", kFwd, {copy}, shape_attr({12})));
  const PassResult r = run_golden("algebraic_simplify", "views", g, algebraic_simplify);
  const Tensor& flat = r.graph.tensor(r.graph.find_tensor("flat"));
  EXPECT_EQ(flat.offset, 12);  // a view of x's rows 2..3, not of the bypassed copy
  EXPECT_EQ(flat.data, r.graph.tensor(r.graph.find_tensor("x")).data);
}

// ---- shape inference ----

TEST(PassesShapeInference, ConsistentGraphsPassUnchanged) {
  for (const auto& [name, graph] : {std::pair<std::string, Graph>{"mlp", plain_mlp()},
                                    {"training_step", training_step(plain_mlp())}}) {
    const PassResult r = run_golden("shape_inference", name, graph, shape_inference);
    EXPECT_FALSE(r.changed) << name;
  }
}

TEST(PassesShapeInference, ViewsAndInPlaceUpdatesPass) {
  Graph g("views");
  const TensorId x = param(g, "x", TensorRole::Input, {2, 3, 4});
  const TensorId t = g.add(OpType::Transpose, "t", kFwd, {x}, perm_attr({2, 0, 1}));
  const TensorId s = g.add(
      OpType::Slice, "s", kFwd, {t},
      Attrs{
          {"axis", int64_t{0}}, {"start", int64_t{1}}, {"end", int64_t{4}}, {"step", int64_t{2}}});
  const TensorId w = param(g, "w", TensorRole::Weight, {2, 3, 4});
  g.mark_output(s);
  g.mark_output(
      g.add_op(OpType::Sgd, "w.sgd", OpCategory::WeightUpdate, {w, x}, Attrs{{"lr", 0.1}})[0]);
  EXPECT_FALSE(run_golden("shape_inference", "views", g, shape_inference).changed);
}

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
