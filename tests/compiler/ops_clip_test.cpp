// Gradient clipping by global norm: reduce_sumsq, clip_scale and the updates' grad_scale input
// against PyTorch 1.13's clip_grad_norm_ + SGD, the training step autodiff builds with
// --clip-grad-norm, and that every schedule keeps each update after every gradient.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/dce.h"
#include "compiler/schedule/schedule.h"
#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

const std::vector<float> kW1 = {0.5f, -1.25f, 2.0f, 0.75f, -0.3f, 1.1f};
const std::vector<float> kG1 = {0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f};
const std::vector<float> kW2 = {0.2f, -0.4f, 0.6f, -0.8f};
const std::vector<float> kG2 = {1.5f, -2.5f, 0.25f, 3.0f};

// Two weights with given gradients, clipped to max_norm, then SGD (lr 0.1, no momentum or
// decay): the graph autodiff builds, with the gradients as parameters.
struct ClipGraph {
  Graph g;
  TensorId w1, w2, scale, norm;
};

// max_norm 0: no clipping (the updates without grad_scale).
void build(ClipGraph* b, double max_norm) {
  Graph& g = b->g;
  b->w1 = g.add_parameter("w1", TensorRole::Weight, DType::F32, {2, 3},
                          std::make_shared<HostArray>(kW1));
  b->w2 =
      g.add_parameter("w2", TensorRole::Weight, DType::F32, {4}, std::make_shared<HostArray>(kW2));
  const TensorId g1 = g.add_parameter("g1", TensorRole::WeightGradient, DType::F32, {2, 3},
                                      std::make_shared<HostArray>(kG1));
  const TensorId g2 = g.add_parameter("g2", TensorRole::WeightGradient, DType::F32, {4},
                                      std::make_shared<HostArray>(kG2));
  const Attrs sgd{{"lr", 0.1}, {"momentum", 0.0}};
  if (max_norm == 0.0) {
    g.add_op(OpType::Sgd, "u1", OpCategory::WeightUpdate, {b->w1, g1}, sgd);
    g.add_op(OpType::Sgd, "u2", OpCategory::WeightUpdate, {b->w2, g2}, sgd);
    return;
  }
  const TensorId s1 = g.add(OpType::ReduceSumSq, "s1", OpCategory::WeightUpdate, {g1},
                            Attrs{{"axes", std::vector<int64_t>{0, 1}}});
  const TensorId s2 = g.add(OpType::ReduceSumSq, "s2", OpCategory::WeightUpdate, {g2},
                            Attrs{{"axes", std::vector<int64_t>{0}}});
  const TensorId all = g.add(OpType::Concat, "sums", OpCategory::WeightUpdate, {s1, s2},
                             Attrs{{"axis", int64_t{0}}});
  const std::vector<TensorId> clip = g.add_op(OpType::ClipScale, "clip", OpCategory::WeightUpdate,
                                              {all}, Attrs{{"max_norm", max_norm}});
  b->scale = clip[0];
  b->norm = clip[1];
  g.add_op(OpType::Sgd, "u1", OpCategory::WeightUpdate, {b->w1, g1, TensorId(), b->scale}, sgd);
  g.add_op(OpType::Sgd, "u2", OpCategory::WeightUpdate, {b->w2, g2, TensorId(), b->scale}, sgd);
}

TEST(OpsClip, SumOfSquaresOverAxes) {
  Graph g;
  const TensorId x =
      g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3}, std::make_shared<HostArray>(kG1));
  const TensorId all = g.add(OpType::ReduceSumSq, "all", OpCategory::Forward, {x},
                             Attrs{{"axes", std::vector<int64_t>{0, 1}}});
  const TensorId rows = g.add(OpType::ReduceSumSq, "rows", OpCategory::Forward, {x},
                              Attrs{{"axes", std::vector<int64_t>{1}}});
  EXPECT_EQ(g.tensor(all).shape, (Shape{1}));
  EXPECT_EQ(op_schema(OpType::ReduceSumSq).backward, nullptr);
  Interpreter it(g);
  it.run();
  // Row-major, each square rounded then added, in f32.
  float sum = 0.0f;
  for (float v : kG1)
    sum += v * v;
  EXPECT_EQ(it.value(all).f32(), (std::vector<float>{sum}));
  const std::vector<float> r = it.value(rows).f32();
  EXPECT_FLOAT_EQ(r[0], 0.14f);
  EXPECT_FLOAT_EQ(r[1], 0.77f);
}

// torch.nn.utils.clip_grad_norm_([w1, w2], max_norm) then torch.optim.SGD(lr=0.1).step(),
// PyTorch 1.13's printed bits: the norm 4.297964572906494 either way; with max_norm 1 the
// gradients are scaled by 1 / (4.2979646 + 1e-6).
TEST(OpsClip, ClippedStepMatchesPyTorch) {
  ClipGraph b;
  build(&b, 1.0);
  Interpreter it(b.g);
  it.run();
  EXPECT_EQ(it.value(b.norm).f32(), (std::vector<float>{f32_from_bits(0x408988edu)}));
  const std::vector<uint32_t> torch1 = {0x3efecf09, 0xbfa0987b, 0x4000725c,
                                        0x3f3d9e13, 0xbe93a4c9, 0x3f8b035b};
  const std::vector<uint32_t> torch2 = {0x3e290fea, 0xbeaf04bb, 0x3f181c66, 0xbf5eab3f};
  const std::vector<float> w1 = it.value(b.w1).f32(), w2 = it.value(b.w2).f32();
  // PyTorch sums the squares in its own order: the scale, and so the weights, may be an ulp off.
  for (size_t i = 0; i < w1.size(); ++i)
    EXPECT_NEAR(w1[i], f32_from_bits(torch1[i]), 2e-7) << i;
  for (size_t i = 0; i < w2.size(); ++i)
    EXPECT_NEAR(w2[i], f32_from_bits(torch2[i]), 2e-7) << i;
}

// Below the max norm the scale is exactly 1: the update is bit for bit the unclipped one (and
// PyTorch's, to its fused multiply-add: within an ulp).
TEST(OpsClip, BelowTheMaxNormTheStepIsUnchanged) {
  ClipGraph clipped, plain;
  build(&clipped, 100.0);
  build(&plain, 0.0);
  Interpreter a(clipped.g), b(plain.g);
  a.run();
  b.run();
  EXPECT_EQ(a.value(clipped.scale).f32(), (std::vector<float>{1.0f}));
  EXPECT_EQ(a.value(clipped.w1).f32(), b.value(plain.w1).f32());
  EXPECT_EQ(a.value(clipped.w2).f32(), b.value(plain.w2).f32());
  const std::vector<uint32_t> torch2 = {0x3d4ccccd, 0xbe19999a, 0x3f133334, 0xbf8ccccd};
  const std::vector<float> w2 = a.value(clipped.w2).f32();
  for (size_t i = 0; i < w2.size(); ++i)
    EXPECT_NEAR(w2[i], f32_from_bits(torch2[i]), 1.2e-7 * std::abs(double{w2[i]})) << i;
}

TEST(OpsClip, Errors) {
  Graph g;
  const TensorId sums = g.add_parameter("sums", TensorRole::Scratch, DType::F32, {3});
  const TensorId square = g.add_parameter("square", TensorRole::Scratch, DType::F32, {2, 2});
  auto clip_error = [&](TensorId in, double max_norm) {
    return user_error([&] {
      g.add_op(OpType::ClipScale, "e", OpCategory::WeightUpdate, {in},
               Attrs{{"max_norm", max_norm}});
    });
  };
  EXPECT_NE(clip_error(sums, 0.0).find("max_norm 0.0 must be finite and > 0"), std::string::npos);
  EXPECT_NE(clip_error(sums, -1.0).find("must be finite and > 0"), std::string::npos);
  EXPECT_NE(clip_error(sums, 1e300).find("must be finite and > 0"), std::string::npos);
  EXPECT_NE(clip_error(square, 1.0).find("must be rank 1"), std::string::npos);
  const TensorId w = g.add_parameter("w", TensorRole::Weight, DType::F32, {3});
  const TensorId dw = g.add_parameter("dw", TensorRole::WeightGradient, DType::F32, {3});
  const std::string wrong_scale = user_error([&] {
    g.add_op(OpType::Sgd, "u", OpCategory::WeightUpdate, {w, dw, TensorId(), sums},
             Attrs{{"lr", 0.1}, {"momentum", 0.0}});
  });
  EXPECT_NE(wrong_scale.find("f32[3]"), std::string::npos) << wrong_scale;
}

// A two-layer MLP's training step with clipping: one reduce_sumsq per weight gradient, one
// clip_scale whose scale every update takes and whose norm is a graph output.
Graph mlp_step(const OptimizerOptions& o) {
  Graph g;
  const TensorId x =
      g.add_parameter("x", TensorRole::Input, DType::F32, {2, 3}, std::make_shared<HostArray>(kW1));
  const TensorId w1 = g.add_parameter("fc1.weight", TensorRole::Weight, DType::F32, {4, 3},
                                      std::make_shared<HostArray>(std::vector<float>(12, 0.5f)));
  const TensorId w2 = g.add_parameter("fc2.weight", TensorRole::Weight, DType::F32, {5, 4},
                                      std::make_shared<HostArray>(std::vector<float>(20, 0.25f)));
  const TensorId labels = g.add_parameter("labels", TensorRole::Label, DType::I32, {2},
                                          std::make_shared<HostArray>(std::vector<int32_t>{1, 3}));
  const TensorId h =
      g.add(OpType::Gemm, "fc1", OpCategory::Forward, {x, w1}, Attrs{{"trans_b", int64_t{1}}});
  const TensorId y =
      g.add(OpType::Gemm, "fc2", OpCategory::Forward, {h, w2}, Attrs{{"trans_b", int64_t{1}}});
  g.set_loss(g.add(OpType::SoftmaxCe, "loss", OpCategory::Forward, {y, labels}));
  build_training_step(g, o);
  return g;
}

TEST(OpsClip, AutodiffScalesEveryUpdate) {
  for (const char* optimizer : {"sgd", "adamw"}) {
    SCOPED_TRACE(optimizer);
    OptimizerOptions o;
    o.optimizer = optimizer;
    o.clip_grad_norm = 0.5;
    const Graph g = mlp_step(o);
    const OpId clip = g.find_op("clip_grad_norm");
    ASSERT_TRUE(clip.valid());
    EXPECT_EQ(g.op(clip).attrs.f("max_norm"), 0.5);
    const TensorId scale = g.op(clip).outputs[0];
    EXPECT_NE(std::find(g.outputs().begin(), g.outputs().end(), g.op(clip).outputs[1]),
              g.outputs().end());
    EXPECT_EQ(g.tensor(g.op(clip).inputs[0]).shape, (Shape{2}));
    for (const char* w : {"fc1.weight", "fc2.weight"}) {
      EXPECT_TRUE(g.find_op(std::string(w) + ".grad_sumsq").valid()) << w;
      const Op& update = g.op(g.find_op(std::string(w) + "." + optimizer));
      EXPECT_EQ(update.inputs.at(std::string(optimizer) == "sgd" ? 3 : 5), scale) << w;
    }
    // Without clipping, the same step has no clipping ops and no scale.
    PassResult plain = dead_code_elimination(without_grad_clipping(g));
    ASSERT_TRUE(plain.changed);
    size_t updates = 0;
    for (size_t i = 0; i < plain.graph.num_ops(); ++i) {
      const Op& op = plain.graph.op(OpId(i));
      EXPECT_NE(op.type, OpType::ClipScale);
      EXPECT_NE(op.type, OpType::ReduceSumSq);
      if (op.type != OpType::Sgd && op.type != OpType::AdamW) continue;
      ++updates;
      for (TensorId in : op.inputs)
        EXPECT_TRUE(!in.valid() || plain.graph.tensor(in).name != "clip_grad_norm.scale");
    }
    EXPECT_EQ(updates, 2u);
    EXPECT_EQ(plain.graph.outputs().size() + 1, g.outputs().size());
  }
}

// The global norm needs every gradient: under every scheduler, no update runs before the last
// gradient's sum of squares.
TEST(OpsClip, EveryScheduleUpdatesAfterTheLastGradient) {
  OptimizerOptions o;
  o.clip_grad_norm = 1.0;
  const Graph g = mlp_step(o);
  for (const std::string& scheduler : schedule::scheduler_registry().names()) {
    SCOPED_TRACE(scheduler);
    const std::vector<OpId> order = schedule::schedule_ops(g, scheduler);
    size_t last_sumsq = 0, first_update = order.size();
    for (size_t k = 0; k < order.size(); ++k) {
      const Op& op = g.op(order[k]);
      if (op.type == OpType::ReduceSumSq) last_sumsq = k;
      if (op.type == OpType::Sgd) first_update = std::min(first_update, k);
    }
    EXPECT_LT(last_sumsq, first_update);
  }
}

}  // namespace
}  // namespace s2::ir
