// Operator fusion (compiler/passes/fusion.h): each pattern on a small hand-built graph, the
// legality rules (single use, outputs, views, cycles), the target's epilogue features, and
// whole training steps of the zoo — always checking that the reference interpreter gives
// the fused graph's tensors the very bits it gives the unfused graph's.

#include "compiler/passes/fusion.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "compiler/driver/frontend.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "isa/numerics/low_precision.h"
#include "simulator/dram/load_target.h"

namespace s2::ir {
namespace {

using target::EpilogueFeature;
using Ints = std::vector<int64_t>;

const std::set<EpilogueFeature> kAll = {EpilogueFeature::Bias, EpilogueFeature::Activation,
                                        EpilogueFeature::Residual, EpilogueFeature::Gate,
                                        EpilogueFeature::Stats};

// Uniform in [-1, 1]: about half the values are negative, so every mask and ReLU matters.
TensorId param(Graph& g, const std::string& name, const Shape& shape, uint32_t seed,
               TensorRole role = TensorRole::Input) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (float& x : v)
    x = dist(rng);
  return g.add_parameter(name, role, DType::F32, shape, std::make_shared<HostArray>(std::move(v)));
}

struct Fused {
  PassResult result;
  FusionStats stats;
};

Fused fuse(const Graph& g, const std::set<EpilogueFeature>& features = kAll) {
  Fused f{PassResult{Graph(), false, ""}, {}};
  f.result = fuse_epilogues(g, FusionOptions{features}, &f.stats);
  EXPECT_EQ(verify_graph(f.result.graph), std::vector<std::string>{});
  return f;
}

size_t count(const FusionStats& s, FusionPattern p) {
  return s.by_pattern[static_cast<size_t>(p)];
}

// Runs both graphs and expects every tensor the fused graph still has (matched by name) to
// hold the same bits in both, outputs and updated state included.
void expect_same_bits(const Graph& unfused, const Graph& fused) {
  Interpreter a(unfused), b(fused);
  a.run();
  b.run();
  for (size_t i = 0; i < fused.num_tensors(); ++i) {
    const Tensor& t = fused.tensor(TensorId(i));
    const TensorId original = unfused.find_tensor(t.name);
    ASSERT_TRUE(original.valid()) << "%" << t.name << " is new";
    const HostArray x = a.value(original), y = b.value(TensorId(i));
    ASSERT_EQ(x.dtype(), y.dtype());
    ASSERT_EQ(x.size(), y.size());
    const void* px =
        x.dtype() != DType::I32 ? static_cast<const void*>(x.f32().data()) : x.i32().data();
    const void* py =
        y.dtype() != DType::I32 ? static_cast<const void*>(y.f32().data()) : y.i32().data();
    EXPECT_EQ(std::memcmp(px, py, x.size() * 4), 0) << "%" << t.name << " differs";
  }
}

const Op& only_op(const Graph& g) {
  EXPECT_EQ(g.num_ops(), 1u);
  return g.op(OpId(size_t{0}));
}

// ---- one pattern each ----------------------------------------------------------------------

TEST(FusionPatterns, ConvResidualReluWithThePeResultAsSecondOperand) {
  Graph g("conv_add_relu");
  const TensorId x = param(g, "x", {2, 3, 6, 6}, 1), r = param(g, "r", {2, 4, 6, 6}, 2);
  const TensorId w = param(g, "w", {4, 3, 3, 3}, 3, TensorRole::Weight);
  const TensorId b = param(g, "b", {4}, 4, TensorRole::Weight);
  const TensorId y =
      g.add(OpType::Conv2d, "conv", OpCategory::Forward, {x, w, b}, {{"pads", Ints{1, 1, 1, 1}}});
  const TensorId s = g.add(OpType::Add, "add", OpCategory::Forward, {r, y});
  g.mark_output(g.add(OpType::Relu, "relu", OpCategory::Forward, {s}));
  const Fused f = fuse(g);
  ASSERT_TRUE(f.result.changed);
  EXPECT_EQ(print_op(f.result.graph, only_op(f.result.graph)),
            "%relu: f32[2,4,6,6] = conv2d(%x, %w, %b, %r) act=\"relu\" dilation=[1,1] groups=1 "
            "keep_pre=0 pads=[1,1,1,1] stride=[1,1]  # forward @conv");
  EXPECT_EQ(count(f.stats, FusionPattern::Residual), 1u);
  EXPECT_EQ(count(f.stats, FusionPattern::Activation), 1u);
  EXPECT_EQ(f.stats.ops_fused, 2u);
  EXPECT_EQ(f.stats.bytes_saved, 2u * 288 * 4 * 2);  // conv and add results, written and read
  ASSERT_EQ(f.stats.groups.size(), 1u);
  EXPECT_EQ(f.stats.groups[0].op, "conv");
  EXPECT_EQ(f.stats.groups[0].absorbed, (std::vector<std::string>{"add", "relu"}));
  expect_same_bits(g, f.result.graph);
}

// The activation family fuses like relu, into PE epilogues only when the target's
// pe_array.activations lists the function, into bn_fwd always; an activation whose input
// another activation reads too stays unfused (a backward's read is ActivationKeepsItsInput...).
TEST(FusionPatterns, ActivationsFuseWhereTheTargetComputesThem) {
  auto conv_act = [](const std::string& act, bool second_reader) {
    Graph g("conv_" + act);
    const TensorId x = param(g, "x", {2, 3, 6, 6}, 1);
    const TensorId w = param(g, "w", {4, 3, 3, 3}, 3, TensorRole::Weight);
    const TensorId y = g.add(OpType::Conv2d, "conv", OpCategory::Forward, {x, w});
    g.mark_output(g.add(OpType::Activation, "act", OpCategory::Forward, {y}, {{"act", act}}));
    if (second_reader) g.mark_output(g.add(OpType::Relu, "other", OpCategory::Forward, {y}));
    return g;
  };
  const Graph relu6 = conv_act("relu6", false);
  const Fused f = fuse(relu6);
  ASSERT_TRUE(f.result.changed);
  EXPECT_EQ(only_op(f.result.graph).attrs.s("act"), "relu6");
  EXPECT_EQ(count(f.stats, FusionPattern::Activation), 1u);
  expect_same_bits(relu6, f.result.graph);
  const Graph silu = conv_act("silu", false);
  const Fused fs = fuse(silu);
  EXPECT_EQ(only_op(fs.result.graph).attrs.s("act"), "silu");
  expect_same_bits(silu, fs.result.graph);
  EXPECT_FALSE(fuse(conv_act("silu", true)).result.changed);

  FusionOptions no_relu6{kAll, {isa::Activation::Relu, isa::Activation::Sigmoid}};
  EXPECT_FALSE(fuse_epilogues(relu6, no_relu6, nullptr).changed);

  Graph bn("bn_sigmoid");
  const TensorId x = param(bn, "x", {2, 3, 4, 4}, 1);
  const TensorId gamma = param(bn, "gamma", {3}, 2, TensorRole::Weight);
  const TensorId beta = param(bn, "beta", {3}, 3, TensorRole::Weight);
  const TensorId rm = param(bn, "rm", {3}, 4, TensorRole::State);
  const TensorId rv = param(bn, "rv", {3}, 5, TensorRole::State);
  const TensorId y =
      bn.add_op(OpType::BatchNorm, "bn", OpCategory::Forward, {x, gamma, beta, rm, rv})[0];
  bn.mark_output(bn.add(OpType::Activation, "act", OpCategory::Forward, {y}, {{"act", "sigmoid"}}));
  const FusionOptions pe_relu_only{kAll, {isa::Activation::Relu}};
  EXPECT_TRUE(fuse_epilogues(bn, pe_relu_only, nullptr).changed);  // the PPU computes sigmoid
  const Fused fb = fuse(bn);
  ASSERT_TRUE(fb.result.changed);
  EXPECT_EQ(count(fb.stats, FusionPattern::BnRelu), 1u);
  expect_same_bits(bn, fb.result.graph);
}

// In a training step the backward of silu, gelu, hardswish and hardsigmoid reads the
// activation's input x, so x has a second reader. The activation still fuses, into a PE op
// or batch_norm, with keep_pre=1: the fused op writes x as its output `pre` beside y, which
// saves the activation's read of x. Bits as unfused, in f32 and in bf16 (the activation
// reads pre rounded to its type, as the separate op reads x from DRAM).
TEST(FusionPatterns, ActivationKeepsItsInputForTheBackward) {
  for (const DType type : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(isa::dtype_name(type));
    auto typed = [type](std::vector<float> v) {
      for (float& x : v)
        x = numerics::round_to(type, x);
      return std::make_shared<HostArray>(std::move(v), type);
    };
    auto values = [](size_t n, uint32_t seed) {
      std::mt19937 rng(seed);
      std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
      std::vector<float> v(n);
      for (float& x : v)
        x = dist(rng);
      return v;
    };
    Graph g("conv_silu_step");
    const TensorId x =
        g.add_parameter("x", TensorRole::Input, type, {2, 3, 6, 6}, typed(values(216, 1)));
    const TensorId w =
        g.add_parameter("w", TensorRole::Weight, type, {4, 3, 3, 3}, typed(values(108, 2)));
    const TensorId dy =
        g.add_parameter("dy", TensorRole::Gradient, type, {2, 4, 4, 4}, typed(values(128, 3)));
    const TensorId y = g.add(OpType::Conv2d, "conv", OpCategory::Forward, {x, w});
    g.mark_output(g.add(OpType::Activation, "act", OpCategory::Forward, {y}, {{"act", "silu"}}));
    g.mark_output(g.add(OpType::ActivationBwd, "act.bwd", OpCategory::ActivationGrad, {dy, y},
                        {{"act", "silu"}}));
    const Fused f = fuse(g);
    ASSERT_TRUE(f.result.changed);
    const Graph& out = f.result.graph;
    ASSERT_EQ(out.num_ops(), 2u);
    const Op& conv = out.op(out.tensor(out.find_tensor("act")).producer);
    EXPECT_EQ(conv.type, OpType::Conv2d);
    EXPECT_EQ(conv.attrs.s("act"), "silu");
    EXPECT_EQ(conv.attrs.i("keep_pre"), 1);
    ASSERT_EQ(conv.outputs.size(), 2u);
    EXPECT_EQ(out.tensor(conv.outputs[1]).name, "conv");  // what the backward reads
    EXPECT_EQ(count(f.stats, FusionPattern::Activation), 1u);
    EXPECT_EQ(f.stats.bytes_saved, 128u * isa::dtype_bytes(type));  // one read of x
    expect_same_bits(g, out);
    EXPECT_EQ(verify_graph(out), std::vector<std::string>{});

    // batch_norm -> silu the same way, through bn_fwd's activation.
    Graph bn("bn_silu_step");
    const TensorId bx =
        bn.add_parameter("x", TensorRole::Input, type, {2, 3, 4, 4}, typed(values(96, 4)));
    const TensorId bdy =
        bn.add_parameter("dy", TensorRole::Gradient, type, {2, 3, 4, 4}, typed(values(96, 5)));
    const TensorId gamma = param(bn, "gamma", {3}, 6, TensorRole::Weight);
    const TensorId beta = param(bn, "beta", {3}, 7, TensorRole::Weight);
    const TensorId rm = param(bn, "rm", {3}, 8, TensorRole::State);
    const TensorId rv = param(bn, "rv", {3}, 9, TensorRole::State);
    const TensorId by =
        bn.add_op(OpType::BatchNorm, "bn", OpCategory::Forward, {bx, gamma, beta, rm, rv})[0];
    bn.mark_output(bn.add(OpType::Activation, "act", OpCategory::Forward, {by}, {{"act", "gelu"}}));
    bn.mark_output(bn.add(OpType::ActivationBwd, "act.bwd", OpCategory::ActivationGrad, {bdy, by},
                          {{"act", "gelu"}}));
    const Fused fb = fuse(bn);
    ASSERT_TRUE(fb.result.changed);
    EXPECT_EQ(count(fb.stats, FusionPattern::BnRelu), 1u);
    const Graph& bout = fb.result.graph;
    const Op& fused_bn = bout.op(bout.tensor(bout.find_tensor("act")).producer);
    EXPECT_EQ(fused_bn.attrs.i("keep_pre"), 1);
    EXPECT_EQ(bout.tensor(fused_bn.outputs.at(5)).name, "bn.y");
    expect_same_bits(bn, bout);
  }
  // An activation whose backward reads its output (sigmoid) gives x no second reader in a
  // training step; a second activation reading x is not a backward: neither keeps pre.
  Graph two("conv_two_acts");
  const TensorId x = param(two, "x", {2, 3, 6, 6}, 1);
  const TensorId w = param(two, "w", {4, 3, 3, 3}, 3, TensorRole::Weight);
  const TensorId y = two.add(OpType::Conv2d, "conv", OpCategory::Forward, {x, w});
  two.mark_output(two.add(OpType::Activation, "a", OpCategory::Forward, {y}, {{"act", "silu"}}));
  two.mark_output(two.add(OpType::Activation, "b", OpCategory::Forward, {y}, {{"act", "gelu"}}));
  EXPECT_FALSE(fuse(two).result.changed);
}

TEST(FusionPatterns, GemmResidualReluWithThePeResultAsFirstOperand) {
  Graph g("gemm_add_relu");
  const TensorId a = param(g, "a", {5, 7}, 1), r = param(g, "r", {5, 6}, 2);
  const TensorId w = param(g, "w", {6, 7}, 3, TensorRole::Weight);
  const TensorId b = param(g, "b", {6}, 4, TensorRole::Weight);
  const TensorId y =
      g.add(OpType::Gemm, "fc", OpCategory::Forward, {a, w, b}, {{"trans_b", int64_t{1}}});
  const TensorId s = g.add(OpType::Add, "add", OpCategory::Forward, {y, r});
  g.mark_output(g.add(OpType::Relu, "relu", OpCategory::Forward, {s}));
  const Fused f = fuse(g);
  const Op& op = only_op(f.result.graph);
  EXPECT_EQ(op.type, OpType::Gemm);
  EXPECT_EQ(op.attrs.s("act"), "relu");
  EXPECT_EQ(f.result.graph.tensor(op.inputs.at(3)).name, "r");
  EXPECT_FALSE(op.inputs.at(4).valid());
  expect_same_bits(g, f.result.graph);
}

// The data gradient of a stride-2, padded 3x3 convolution: dy [2,4,3,3] and w [4,3,3,3]
// (seeds 1 and 2) -> dx [2,3,6,6], op 'bwd_data'.
TensorId strided_bwd_data(Graph& g) {
  const TensorId dy = param(g, "dy", {2, 4, 3, 3}, 1, TensorRole::Gradient);
  const TensorId w = param(g, "w", {4, 3, 3, 3}, 2, TensorRole::Weight);
  return g.add(OpType::Conv2dBwdData, "bwd_data", OpCategory::ActivationGrad, {dy, w},
               {{"stride", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"input_hw", Ints{6, 6}}});
}

TEST(FusionPatterns, ConvBwdDataGradSumThenGate) {
  Graph g("bwd_data_sum_gate");
  const TensorId dx = strided_bwd_data(g);
  const TensorId other = param(g, "other", {2, 3, 6, 6}, 3, TensorRole::Gradient);
  const TensorId gate = param(g, "gate", {2, 3, 6, 6}, 4, TensorRole::Activation);
  const TensorId s = g.add(OpType::Add, "grad_sum", OpCategory::ActivationGrad, {other, dx});
  g.mark_output(g.add(OpType::ReluBwd, "relu.bwd", OpCategory::ActivationGrad, {s, gate}));
  const Fused f = fuse(g);
  const Op& op = only_op(f.result.graph);
  EXPECT_EQ(op.type, OpType::Conv2dBwdData);
  EXPECT_EQ(op.name, "bwd_data");
  EXPECT_EQ(op.category, OpCategory::ActivationGrad);
  EXPECT_EQ(print_op(f.result.graph, op),
            "%relu.bwd: f32[2,3,6,6] = conv2d_bwd_data(%dy, %w, %other, %gate) dilation=[1,1] "
            "gate_act=\"relu\" groups=1 input_hw=[6,6] pads=[1,1,1,1] stride=[2,2]  "
            "# activation_grad @bwd_data");
  EXPECT_EQ(count(f.stats, FusionPattern::GradSum), 1u);
  EXPECT_EQ(count(f.stats, FusionPattern::Gate), 1u);
  expect_same_bits(g, f.result.graph);
}

TEST(FusionPatterns, GemmGate) {
  Graph g("gemm_gate");
  const TensorId dy = param(g, "dy", {4, 6}, 1, TensorRole::Gradient);
  const TensorId w = param(g, "w", {6, 5}, 2, TensorRole::Weight);
  const TensorId gate = param(g, "gate", {4, 5}, 3, TensorRole::Activation);
  const TensorId da = g.add(OpType::Gemm, "grad_a", OpCategory::ActivationGrad, {dy, w});
  g.mark_output(g.add(OpType::ReluBwd, "relu.bwd", OpCategory::ActivationGrad, {da, gate}));
  const Fused f = fuse(g);
  const Op& op = only_op(f.result.graph);
  EXPECT_EQ(op.inputs.at(4), f.result.graph.find_tensor("gate"));
  EXPECT_EQ(op.attrs.s("act"), "none");
  EXPECT_EQ(count(f.stats, FusionPattern::Gate), 1u);
  expect_same_bits(g, f.result.graph);
}

// Every activation's backward (activation_bwd, reading the forward output or input as the
// activation needs) joins the PE op that computes its dy as the gate stage, with gate_act
// naming it; bits as unfused.
TEST(FusionPatterns, ActivationBackwardGatesThePeResult) {
  for (const isa::EnumValue& v : isa::enum_values(isa::EnumSet::GateAct)) {
    SCOPED_TRACE(v.name);
    const std::string act(v.name);
    Graph g("gemm_act_gate");
    const TensorId dy = param(g, "dy", {4, 6}, 1, TensorRole::Gradient);
    const TensorId w = param(g, "w", {6, 5}, 2, TensorRole::Weight);
    // Saved values over [-4, 4], so relu6's and the hard functions' corners are crossed.
    const TensorId saved = param(g, "saved", {4, 5}, 3, TensorRole::Activation);
    const TensorId four =
        g.add(OpType::Scale, "four", OpCategory::Forward, {saved}, {{"alpha", 4.0}, {"beta", 0.0}});
    const TensorId da = g.add(OpType::Gemm, "grad_a", OpCategory::ActivationGrad, {dy, w});
    if (act == "relu")  // relu's backward is its own op
      g.mark_output(g.add(OpType::ReluBwd, "act.bwd", OpCategory::ActivationGrad, {da, four}));
    else
      g.mark_output(g.add(OpType::ActivationBwd, "act.bwd", OpCategory::ActivationGrad, {da, four},
                          {{"act", act}}));
    const Fused f = fuse(g);
    ASSERT_TRUE(f.result.changed);
    const Graph& out = f.result.graph;
    bool found = false;
    for (size_t i = 0; i < out.num_ops(); ++i) {
      const Op& op = out.op(OpId(i));
      if (op.type != OpType::Gemm) continue;
      found = true;
      EXPECT_EQ(op.inputs.at(4), out.find_tensor("four"));
      EXPECT_EQ(op.attrs.s("gate_act"), act);
      EXPECT_EQ(out.tensor(op.outputs.at(0)).name, "act.bwd");
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(count(f.stats, FusionPattern::Gate), 1u);
    expect_same_bits(g, out);
  }
}

// The gate computes another activation's backward only where the activation stage computes
// that function (pe_array.activations); relu's mask needs the gate stage alone.
TEST(FusionPatterns, ActivationBackwardGateNeedsTheFunctionInTheEpilogue) {
  Graph g("conv_bwd_silu_gate");
  const TensorId dx = strided_bwd_data(g);
  const TensorId x = param(g, "x", {2, 3, 6, 6}, 3, TensorRole::Activation);
  g.mark_output(g.add(OpType::ActivationBwd, "silu.bwd", OpCategory::ActivationGrad, {dx, x},
                      {{"act", std::string("silu")}}));
  const FusionOptions relu_only{kAll, {isa::Activation::Relu}};
  EXPECT_FALSE(fuse_epilogues(g, relu_only, nullptr).changed);
  const FusionOptions no_gate{{EpilogueFeature::Activation}, target::all_activations()};
  EXPECT_FALSE(fuse_epilogues(g, no_gate, nullptr).changed);
  const Fused f = fuse(g);
  const Op& op = only_op(f.result.graph);
  EXPECT_EQ(op.type, OpType::Conv2dBwdData);
  EXPECT_EQ(op.attrs.s("gate_act"), "silu");
  EXPECT_EQ(f.result.graph.tensor(op.inputs.at(3)).name, "x");
  expect_same_bits(g, f.result.graph);
}

TEST(FusionPatterns, ConvBwdWeightGradSum) {
  Graph g("bwd_weight_sum");
  const TensorId x = param(g, "x", {2, 3, 5, 5}, 1, TensorRole::Activation);
  const TensorId dy = param(g, "dy", {2, 4, 5, 5}, 2, TensorRole::Gradient);
  const TensorId other = param(g, "other", {4, 3, 3, 3}, 3, TensorRole::WeightGradient);
  const TensorId dw = g.add(OpType::Conv2dBwdWeight, "bwd_weight", OpCategory::WeightGrad, {x, dy},
                            {{"pads", Ints{1, 1, 1, 1}}, {"kernel_hw", Ints{3, 3}}});
  g.mark_output(g.add(OpType::Add, "w.grad_sum", OpCategory::WeightGrad, {dw, other}));
  const Fused f = fuse(g);
  EXPECT_EQ(only_op(f.result.graph).inputs.at(2), f.result.graph.find_tensor("other"));
  EXPECT_EQ(count(f.stats, FusionPattern::GradSum), 1u);
  expect_same_bits(g, f.result.graph);
}

struct BnSetup {
  Graph g{"bn"};
  TensorId x, gamma;
  std::vector<TensorId> bn;  // y, saved_mean, saved_invstd, running stats
  BnSetup() {
    x = param(g, "x", {4, 3, 2, 2}, 1, TensorRole::Activation);
    gamma = param(g, "gamma", {3}, 2, TensorRole::Weight);
    const TensorId beta = param(g, "beta", {3}, 3, TensorRole::Weight);
    const TensorId rm = param(g, "rm", {3}, 4, TensorRole::State);
    const TensorId rv = g.add_parameter("rv", TensorRole::State, DType::F32, {3},
                                        std::make_shared<HostArray>(std::vector<float>(3, 1.0f)));
    bn = g.add_op(OpType::BatchNorm, "bn", OpCategory::Forward, {x, gamma, beta, rm, rv});
  }
};

TEST(FusionPatterns, BatchNormReluWithoutAnyPeFeature) {
  BnSetup s;
  s.g.mark_output(s.g.add(OpType::Relu, "relu", OpCategory::Forward, {s.bn[0]}));
  s.g.mark_output(s.bn[1]);
  const Fused f = fuse(s.g, {});
  const Op& op = only_op(f.result.graph);
  EXPECT_EQ(op.type, OpType::BatchNorm);
  EXPECT_EQ(op.attrs.s("act"), "relu");
  EXPECT_EQ(f.result.graph.tensor(op.outputs[0]).name, "relu");
  EXPECT_EQ(f.result.graph.tensor(op.outputs[1]).name, "bn.saved_mean");
  EXPECT_EQ(count(f.stats, FusionPattern::BnRelu), 1u);
  expect_same_bits(s.g, f.result.graph);  // the running statistics too
}

// relu_bwd -> batch_norm_bwd, or (with the gate feature, ties going to the longest PE
// epilogue) gemm -> relu_bwd with batch_norm_bwd left alone: both bit-identical.
TEST(FusionPatterns, ReluBwdGatesBatchNormBwdUnlessThePeOpTakesIt) {
  BnSetup s;
  const TensorId dy = param(s.g, "dy", {4, 3, 2, 2}, 5, TensorRole::Gradient);
  const TensorId mask = s.g.add(OpType::ReluBwd, "relu.bwd", OpCategory::ActivationGrad, {dy, s.x});
  for (TensorId t : s.g.add_op(OpType::BatchNormBwd, "bn.bwd", OpCategory::ActivationGrad,
                               {mask, s.x, s.gamma, s.bn[1], s.bn[2]}))
    s.g.mark_output(t);
  Fused f = fuse(s.g, {});
  ASSERT_EQ(f.result.graph.num_ops(), 2u);
  const Op& bwd = f.result.graph.op(f.result.graph.find_op("bn.bwd"));
  EXPECT_EQ(bwd.inputs.at(0), f.result.graph.find_tensor("dy"));
  EXPECT_EQ(bwd.inputs.at(5), f.result.graph.find_tensor("x"));
  EXPECT_EQ(count(f.stats, FusionPattern::BnBwdGate), 1u);
  expect_same_bits(s.g, f.result.graph);

  Graph g("tie");
  const TensorId x2 = param(g, "x2", {8, 5}, 1, TensorRole::Activation);
  std::vector<TensorId> stats_in{x2};
  for (const char* name : {"gamma", "beta", "rm", "rv"})
    stats_in.push_back(param(g, name, {5}, 2, TensorRole::State));
  const std::vector<TensorId> bn = g.add_op(OpType::BatchNorm, "bn", OpCategory::Forward, stats_in);
  const TensorId da =
      g.add(OpType::Gemm, "grad_a", OpCategory::ActivationGrad,
            {param(g, "d", {8, 6}, 3), param(g, "w", {6, 5}, 4, TensorRole::Weight)});
  const TensorId m = g.add(OpType::ReluBwd, "relu.bwd", OpCategory::ActivationGrad, {da, x2});
  g.mark_output(g.add_op(OpType::BatchNormBwd, "bn.bwd", OpCategory::ActivationGrad,
                         {m, x2, stats_in[1], bn[1], bn[2]})[0]);
  f = fuse(g);
  EXPECT_EQ(count(f.stats, FusionPattern::Gate), 1u);
  EXPECT_EQ(count(f.stats, FusionPattern::BnBwdGate), 0u);
  expect_same_bits(g, f.result.graph);
  f = fuse(g, {EpilogueFeature::Residual, EpilogueFeature::Activation});
  EXPECT_EQ(count(f.stats, FusionPattern::Gate), 0u);
  EXPECT_EQ(count(f.stats, FusionPattern::BnBwdGate), 1u);
  expect_same_bits(g, f.result.graph);
}

// Every activation's backward (activation_bwd) before batch_norm_bwd becomes bn_bwd's gate
// with gate_act naming it, on any target (the PPU computes every function); in bf16 the gate
// stage rounds to dy's type, as the separate op stores it, so the bits are as unfused.
TEST(FusionPatterns, ActivationBackwardGatesBatchNormBwd) {
  for (const DType type : {DType::F32, DType::BF16})
    for (const isa::EnumValue& v : isa::enum_values(isa::EnumSet::GateAct)) {
      const std::string act(v.name);
      if (act == "relu") continue;  // relu_bwd: ReluBwdGatesBatchNormBwdUnlessThePeOpTakesIt
      SCOPED_TRACE(act + " " + std::string(isa::dtype_name(type)));
      auto typed = [type](uint32_t seed, float scale) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> dist(-scale, scale);
        std::vector<float> data(48);
        for (float& x : data)
          x = numerics::round_to(type, dist(rng));
        return std::make_shared<HostArray>(std::move(data), type);
      };
      Graph g("bn_act_bwd");
      const Shape shape{4, 3, 2, 2};
      const TensorId x = g.add_parameter("x", TensorRole::Activation, type, shape, typed(1, 2));
      const TensorId dy = g.add_parameter("dy", TensorRole::Gradient, type, shape, typed(2, 1));
      // The saved activation value over [-4, 4], so relu6's and the hard functions' corners
      // are crossed.
      const TensorId saved =
          g.add_parameter("saved", TensorRole::Activation, type, shape, typed(3, 4));
      std::vector<TensorId> bn_in{x};
      for (const char* name : {"gamma", "beta", "rm", "rv"})
        bn_in.push_back(param(g, name, {3}, 4, TensorRole::State));
      const std::vector<TensorId> bn =
          g.add_op(OpType::BatchNorm, "bn", OpCategory::Forward, bn_in);
      const TensorId gated = g.add(OpType::ActivationBwd, "act.bwd", OpCategory::ActivationGrad,
                                   {dy, saved}, {{"act", act}});
      for (TensorId t : g.add_op(OpType::BatchNormBwd, "bn.bwd", OpCategory::ActivationGrad,
                                 {gated, x, bn_in[1], bn[1], bn[2]}))
        g.mark_output(t);
      const Fused f = fuse(g, {});
      ASSERT_TRUE(f.result.changed);
      const Graph& out = f.result.graph;
      const Op& bwd = out.op(out.find_op("bn.bwd"));
      EXPECT_EQ(bwd.inputs.at(0), out.find_tensor("dy"));
      EXPECT_EQ(bwd.inputs.at(5), out.find_tensor("saved"));
      EXPECT_EQ(bwd.attrs.s("gate_act"), act);
      EXPECT_EQ(count(f.stats, FusionPattern::BnBwdGate), 1u);
      expect_same_bits(g, out);
    }
}

// ---- legality ------------------------------------------------------------------------------

// gemm -> relu, with the gemm result also used as `how` says.
Graph gemm_relu(const std::string& how) {
  Graph g(how);
  const TensorId y =
      g.add(OpType::Gemm, "fc", OpCategory::Forward,
            {param(g, "a", {4, 4}, 1), param(g, "w", {4, 4}, 2, TensorRole::Weight)});
  TensorId into = y;
  if (how == "view")
    into = g.add(OpType::Transpose, "t", OpCategory::Forward, {y}, {{"perm", Ints{1, 0}}});
  g.mark_output(g.add(OpType::Relu, "relu", OpCategory::Forward, {into}));
  if (how == "output") g.mark_output(y);
  if (how == "second use") g.mark_output(g.add(OpType::Scale, "scale", OpCategory::Forward, {y}));
  if (how == "loss") g.set_loss(y);
  return g;
}

TEST(FusionLegality, IntermediatesMustHaveOneUseAndStayInternal) {
  EXPECT_TRUE(fuse(gemm_relu("alone")).result.changed);
  for (const char* how : {"output", "second use", "loss", "view"}) {
    const Fused f = fuse(gemm_relu(how));
    EXPECT_FALSE(f.result.changed) << how;
    EXPECT_EQ(f.stats.candidates, 0u) << how;
    EXPECT_EQ(f.result.graph.num_ops(), gemm_relu(how).num_ops()) << how;
  }
  // add(y, y) reads the PE result twice: the residual could not be a second tensor.
  Graph twice("twice");
  const TensorId y = twice.add(OpType::Gemm, "fc", OpCategory::Forward,
                               {param(twice, "a", {4, 4}, 1), param(twice, "w", {4, 4}, 2)});
  twice.mark_output(twice.add(OpType::Add, "add", OpCategory::Forward, {y, y}));
  EXPECT_FALSE(fuse(twice).result.changed);
}

// y = gemm(a, w); the sgd then overwrites w in place, so it must follow the gemm; the add's
// other operand reads the new weight. Merging gemm and add would need the fused op both
// before the sgd (it reads w) and after it (it reads relu(w_new)): a cycle.
TEST(FusionLegality, CandidateClosingACycleIsRejected) {
  Graph g("cycle");
  const TensorId w = param(g, "w", {4, 4}, 2, TensorRole::Weight);
  const TensorId y = g.add(OpType::Gemm, "fc", OpCategory::Forward, {param(g, "a", {4, 4}, 1), w});
  const TensorId w_new =
      g.add_op(OpType::Sgd, "sgd", OpCategory::WeightUpdate,
               {w, param(g, "dw", {4, 4}, 3, TensorRole::WeightGradient)}, {{"lr", 0.5}})[0];
  const TensorId r = g.add(OpType::Relu, "relu", OpCategory::Forward, {w_new});
  g.mark_output(g.add(OpType::Add, "add", OpCategory::Forward, {y, r}));
  const Fused f = fuse(g);
  EXPECT_EQ(f.stats.candidates, 1u);
  EXPECT_EQ(f.stats.rejected_cycle, 1u);
  EXPECT_FALSE(f.result.changed);
  EXPECT_NE(f.result.summary.find("1 candidates, 1 rejected as cycles"), std::string::npos)
      << f.result.summary;
}

// Two groups, each legal alone, that would close a cycle together (each one's gemm must run
// before the sgd whose result feeds the other's add): only one of them is fused.
TEST(FusionLegality, GroupsClosingACycleTogetherKeepOnlyOne) {
  Graph g("joint");
  std::vector<TensorId> y, w_new;
  for (const char* k : {"A", "B"}) {
    const TensorId w = param(g, std::string("w") + k, {4, 4}, 2, TensorRole::Weight);
    y.push_back(g.add(OpType::Gemm, std::string("fc") + k, OpCategory::Forward,
                      {param(g, std::string("a") + k, {4, 4}, 1), w}));
    w_new.push_back(
        g.add_op(OpType::Sgd, std::string("sgd") + k, OpCategory::WeightUpdate,
                 {w, param(g, std::string("dw") + k, {4, 4}, 3, TensorRole::WeightGradient)},
                 {{"lr", 0.5}})[0]);
  }
  for (size_t k = 0; k < 2; ++k) {
    const TensorId r =
        g.add(OpType::Relu, "relu" + std::to_string(k), OpCategory::Forward, {w_new[1 - k]});
    g.mark_output(g.add(OpType::Add, "add" + std::to_string(k), OpCategory::Forward, {y[k], r}));
  }
  const Fused f = fuse(g);
  EXPECT_EQ(f.stats.candidates, 2u);
  EXPECT_EQ(f.stats.rejected_cycle, 0u);
  ASSERT_EQ(f.stats.groups.size(), 1u);
  EXPECT_EQ(f.stats.groups[0].op, "fcA");
  expect_same_bits(g, f.result.graph);
}

TEST(FusionLegality, FusedOpsAreNotExtendedAgain) {
  const Fused once = fuse(gemm_relu("alone"));
  const Fused twice = fuse(once.result.graph);
  EXPECT_FALSE(twice.result.changed);
  EXPECT_EQ(twice.stats.candidates, 0u);
}

// ---- target features -----------------------------------------------------------------------

TEST(FusionFeatures, MissingFeaturesDisableTheirPatterns) {
  Graph g("features");
  const TensorId y =
      g.add(OpType::Conv2d, "conv", OpCategory::Forward,
            {param(g, "x", {1, 2, 4, 4}, 1), param(g, "w", {2, 2, 1, 1}, 2, TensorRole::Weight)});
  const TensorId s =
      g.add(OpType::Add, "add", OpCategory::Forward, {y, param(g, "r", {1, 2, 4, 4}, 3)});
  g.mark_output(g.add(OpType::Relu, "relu", OpCategory::Forward, {s}));
  const TensorId da =
      g.add(OpType::Gemm, "grad_a", OpCategory::ActivationGrad,
            {param(g, "dy", {3, 4}, 4), param(g, "w2", {4, 5}, 5, TensorRole::Weight)});
  g.mark_output(g.add(OpType::ReluBwd, "relu.bwd", OpCategory::ActivationGrad,
                      {da, param(g, "m", {3, 5}, 6)}));
  struct Case {
    std::set<EpilogueFeature> features;
    size_t residual, activation, gate;
  };
  using F = EpilogueFeature;
  for (const Case& c :
       {Case{{}, 0, 0, 0}, Case{{F::Bias, F::Stats}, 0, 0, 0}, Case{{F::Residual}, 1, 0, 0},
        Case{{F::Activation}, 0, 0, 0}, Case{{F::Gate}, 0, 0, 1},
        Case{{F::Residual, F::Activation}, 1, 1, 0}, Case{kAll, 1, 1, 1}}) {
    const Fused f = fuse(g, c.features);
    EXPECT_EQ(count(f.stats, FusionPattern::Residual), c.residual);
    EXPECT_EQ(count(f.stats, FusionPattern::Activation), c.activation);
    EXPECT_EQ(count(f.stats, FusionPattern::Gate), c.gate);
    expect_same_bits(g, f.result.graph);
  }
}

TEST(FusionFeatures, OptionsComeFromTheTargetsEpilogue) {
  const target::TargetDesc base = target::load_target(S2_SOURCE_DIR "/configs/s2train_base.yaml");
  const target::TargetDesc small = target::load_target(S2_SOURCE_DIR "/configs/s2train_small.yaml");
  EXPECT_EQ(fusion_options(base).features, kAll);
  EXPECT_EQ(fusion_options(small).features,
            (std::set<EpilogueFeature>{EpilogueFeature::Bias, EpilogueFeature::Activation,
                                       EpilogueFeature::Residual}));
}

// ---- training steps of the zoo -------------------------------------------------------------

Graph training_step(const std::string& model, int64_t batch, int64_t image) {
  compiler::FrontendOptions o;
  o.model = model;
  o.model_options.batch = batch;
  o.model_options.height = o.model_options.width = image;
  return compiler::run_frontend(o).graph;
}

TEST(FusionModels, Lenet5StepIsBitIdentical) {
  const Graph g = training_step("lenet5", 2, 16);
  const Fused f = fuse(g);
  // conv1, conv2, fc1, fc2 take their ReLU; fc3 and fc2's input gradients take the masks
  // (the convolutions' masks follow max-pool backward, not a PE op).
  EXPECT_EQ(count(f.stats, FusionPattern::Activation), 4u);
  EXPECT_EQ(count(f.stats, FusionPattern::Gate), 2u);
  EXPECT_EQ(f.stats.ops_after, f.stats.ops_before - 6);
  expect_same_bits(g, f.result.graph);
}

TEST(FusionModels, Resnet18StepIsBitIdenticalOnEveryTarget) {
  const Graph g = training_step("resnet18", 2, 16);
  for (const auto& features : {kAll, std::set<EpilogueFeature>{EpilogueFeature::Residual}}) {
    const Fused f = fuse(g, features);
    ASSERT_TRUE(f.result.changed);
    ASSERT_EQ(f.result.graph.outputs().size(), g.outputs().size());  // loss, updated weights
    expect_same_bits(g, f.result.graph);
  }
}

// ResNet-18 has 17 ReLUs: the stem's and one after each block's bn1 (bn_relu, 9), one after
// each block's residual add (8). Backward, the 8 masks inside blocks follow conv2's
// bwd_data (gate); 7 of the 8 block-end masks follow the gradient sum of the next block's
// conv1 bwd_data and its shortcut (grad_sum + gate) — the last follows the average pool —
// and layer1.0's input gradient is such a sum before max-pool backward (grad_sum). The
// stem's mask follows max-pool backward, so batch_norm_bwd takes it (bn_bwd_gate).
TEST(FusionModels, Resnet18CountsPerPattern) {
  const Graph g = training_step("resnet18", 2, 16);
  struct Case {
    std::set<EpilogueFeature> features;
    std::array<size_t, kNumFusionPatterns> counts;
    uint64_t bytes;
  };
  // Bytes: each eliminated intermediate written and read once, 8 bytes per element. At batch
  // 2, 16x16 the feature maps hold 8192 (stem), 2048, 1024, 512 and 1024 (layer1..4) values:
  // bn_relu 8192 + 2*(2048+1024+512+1024); masks in blocks 2*(2048+1024+512+1024); 7 block
  // ends, two intermediates each, 2*(2*2048+2*1024+2*512+1024); layer1.0's input sum 2048;
  // the stem's relu_bwd 8192.
  const uint64_t in_blocks = 2 * (2048 + 1024 + 512 + 1024);
  const uint64_t bn_relu = 8192 + in_blocks,
                 block_ends = 2 * (2 * 2048 + 2 * 1024 + 2 * 512 + 1024);
  for (const Case& c :
       {Case{kAll, {0, 8, 0, 15, 9, 1}, 8 * (bn_relu + in_blocks + block_ends + 2048 + 8192)},
        Case{{EpilogueFeature::Residual},
             {0, 8, 0, 0, 9, 9},
             8 * (bn_relu + 8192 + in_blocks + block_ends / 2 + 2048)},
        Case{{}, {0, 0, 0, 0, 9, 9}, 8 * (bn_relu + 8192 + in_blocks)}}) {
    const Fused f = fuse(g, c.features);
    for (size_t p = 0; p < kNumFusionPatterns; ++p)
      EXPECT_EQ(f.stats.by_pattern[p], c.counts[p])
          << fusion_pattern_name(static_cast<FusionPattern>(p));
    EXPECT_EQ(f.stats.bytes_saved, c.bytes);
    EXPECT_EQ(f.stats.ops_before - f.stats.ops_after, f.stats.ops_fused);
    EXPECT_EQ(f.stats.rejected_cycle, 0u);
  }
}

}  // namespace
}  // namespace s2::ir
