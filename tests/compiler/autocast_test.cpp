// Pass autocast (compiler/passes/autocast.h): where a --precision bf16|fp16 step keeps f32,
// where it stores 16-bit values, and that its results are what the types promise.
#include "compiler/passes/autocast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "compiler/driver/frontend.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ops/registry.h"
#include "compiler/passes/shape_inference.h"
#include "isa/numerics/low_precision.h"
#include "op_test_util.h"

namespace s2::ir {
namespace {

Graph training_step(const std::string& model, DType precision) {
  compiler::FrontendOptions front;
  front.model = model;
  front.model_options.batch = 2;
  front.model_options.height = front.model_options.width = 16;
  front.precision = precision;
  return compiler::run_frontend(front).graph;
}

const Data& data_of(const Graph& g, TensorId t) {
  return g.data(g.tensor(t).data);
}

TEST(Autocast, PrecisionNamesRoundTrip) {
  for (const char* name : {"fp32", "bf16", "fp16"})
    EXPECT_EQ(precision_name(*precision_from_name(name)), std::string(name));
  EXPECT_FALSE(precision_from_name("f16"));  // the --precision spelling is fp16
  EXPECT_FALSE(precision_from_name("int8"));
}

TEST(Autocast, Fp32LeavesTheStepAsItIs) {
  const Graph g = training_step("resnet18", DType::F32);
  const PassResult r = autocast(g, DType::F32);
  EXPECT_FALSE(r.changed);
  for (size_t i = 0; i < g.num_datas(); ++i)
    EXPECT_NE(g.data(DataId(i)).dtype, DType::BF16);
}

// resnet18 in bf16: the batch and every activation and activation gradient bf16; master
// weights, their gradients, optimizer state, statistics and the loss f32; one bf16 copy per
// multiplied weight, written by its update and read by every PE op in place of the weight.
TEST(Autocast, Resnet18KeepsF32WhereTheIssueSaysAndBf16Elsewhere) {
  const Graph g = training_step("resnet18", DType::BF16);
  EXPECT_EQ(g.tensor(g.loss()).dtype, DType::F32);
  std::map<std::string, int> copies;
  for (size_t i = 0; i < g.num_datas(); ++i) {
    const Data& d = g.data(DataId(i));
    switch (d.role) {
      case TensorRole::Input:
        EXPECT_EQ(d.dtype, DType::BF16) << d.name;
        break;
      case TensorRole::Weight:
      case TensorRole::WeightGradient:
      case TensorRole::OptimizerState:
        EXPECT_EQ(d.dtype, DType::F32) << d.name;
        break;
      case TensorRole::State:
        if (d.dtype == DType::BF16) {
          ++copies[d.name];
          EXPECT_TRUE(d.name.size() > 5 && d.name.substr(d.name.size() - 5) == ".bf16") << d.name;
        }
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(copies.size(), 21u);  // 20 convolutions and the classifier
  size_t pe_ops = 0, updates_with_copy = 0;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const Op& op = g.op(OpId(i));
    if (op.type == OpType::Conv2d || op.type == OpType::Conv2dBwdData ||
        op.type == OpType::Conv2dBwdWeight || op.type == OpType::Gemm) {
      ++pe_ops;
      EXPECT_EQ(g.tensor(op.inputs[0]).dtype, DType::BF16) << op.name;
      EXPECT_EQ(g.tensor(op.inputs[1]).dtype, DType::BF16) << op.name;
      const DType out = g.tensor(op.outputs[0]).dtype;
      EXPECT_EQ(out, op.category == OpCategory::WeightGrad ? DType::F32 : DType::BF16) << op.name;
    }
    if (op.type == OpType::BatchNorm) {
      EXPECT_EQ(g.tensor(op.outputs[0]).dtype, DType::BF16);
      EXPECT_EQ(g.tensor(op.outputs[1]).dtype, DType::F32);  // saved mean
      EXPECT_EQ(g.tensor(op.inputs[1]).dtype, DType::F32);   // gamma: the master weight
    }
    if (op.type == OpType::Sgd && op.inputs.size() > 4 && op.inputs[4].valid()) {
      ++updates_with_copy;
      EXPECT_EQ(data_of(g, op.inputs[4]).role, TensorRole::State);
      EXPECT_EQ(g.tensor(op.outputs[2]).data, g.tensor(op.inputs[4]).data);
    }
  }
  EXPECT_GT(pe_ops, 50u);
  EXPECT_EQ(updates_with_copy, 21u);
  // The types are those shape inference gives: the verifier agrees.
  EXPECT_FALSE(shape_inference(g).changed);
}

TEST(Autocast, TheCopyStartsAsTheRoundedWeightAndTheUpdateRewritesIt) {
  Graph g = training_step("mlp", DType::F16);
  const TensorId w = g.find_tensor("fc1.weight");
  const TensorId copy = g.find_tensor("fc1.weight.f16");
  ASSERT_TRUE(w.valid() && copy.valid());
  const std::vector<float>& master = data_of(g, w).init->f32();
  const std::vector<float>& low = data_of(g, copy).init->f32();
  ASSERT_EQ(master.size(), low.size());
  for (size_t i = 0; i < low.size(); ++i)
    ASSERT_EQ(low[i], numerics::round_to(DType::F16, master[i])) << i;
  Interpreter it(g);
  it.run();
  const std::vector<float>& updated = it.buffer(g.tensor(w).data).f32();
  const std::vector<float>& rewritten = it.buffer(g.tensor(copy).data).f32();
  size_t moved = 0;
  for (size_t i = 0; i < updated.size(); ++i) {
    ASSERT_EQ(rewritten[i], numerics::round_to(DType::F16, updated[i])) << i;
    moved += updated[i] != master[i] ? 1u : 0u;
  }
  EXPECT_GT(moved, updated.size() / 2);
}

// Every value the interpreter leaves in a 16-bit tensor is a value of that type.
TEST(Autocast, SixteenBitTensorsHoldValuesOfTheirType) {
  const Graph g = training_step("gpt", DType::BF16);
  Interpreter it(g);
  it.run();
  size_t checked = 0;
  for (size_t i = 0; i < g.num_datas(); ++i) {
    const Data& d = g.data(DataId(i));
    if (d.dtype != DType::BF16) continue;
    for (float v : it.buffer(DataId(i)).f32())
      ASSERT_EQ(v, numerics::round_to(DType::BF16, v)) << d.name;
    ++checked;
  }
  EXPECT_GT(checked, 20u);
}

// A multiplicand nothing 16-bit flows into (here a constant) is cast once by the PPU, and a
// weight joined with 16-bit parts by a concat is read through its copy.
TEST(Autocast, CastsAnF32MultiplicandOnceAndConcatsThroughTheCopy) {
  Graph g("g");
  const TensorId x = param(g, "x", {2, 4}, std::vector<float>(8, 0.5f));
  const TensorId c =
      param(g, "c", {4, 3}, std::vector<float>(12, 1.0f / 3.0f), TensorRole::Scratch);
  const TensorId y1 = g.add(OpType::Gemm, "g1", OpCategory::Forward, {x, c});
  const TensorId y2 = g.add(OpType::Gemm, "g2", OpCategory::Forward, {x, c});
  const TensorId w = param(g, "w", {1, 3}, {1.0f, 2.0f, 3.0f}, TensorRole::Weight);
  const TensorId cat =
      g.add(OpType::Concat, "cat", OpCategory::Forward, {y1, w, y2}, Attrs{{"axis", int64_t{0}}});
  g.mark_output(cat);
  const PassResult r = autocast(g, DType::BF16);
  ASSERT_TRUE(r.changed);
  const Graph& out = r.graph;
  EXPECT_NE(r.summary.find("1 casts"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("1 weight copies"), std::string::npos) << r.summary;
  const Op& g1 = out.op(out.find_op("g1"));
  const Op& g2 = out.op(out.find_op("g2"));
  EXPECT_EQ(g1.inputs[1], g2.inputs[1]);  // one cast serves both
  EXPECT_EQ(out.tensor(g1.inputs[1]).dtype, DType::BF16);
  EXPECT_EQ(out.op(out.tensor(g1.inputs[1]).producer).type, OpType::Cast);
  const Op& concat = out.op(out.find_op("cat"));
  EXPECT_EQ(out.tensor(concat.inputs[1]).name, "w.bf16");
  EXPECT_EQ(out.tensor(concat.outputs[0]).dtype, DType::BF16);
  Interpreter it(out);
  it.run();
  // 4 x 0.5 x bf16(1/3) = 2 x 0.333984375, exact in bf16.
  EXPECT_EQ(it.value(concat.outputs[0]).f32()[0], 0.66796875f);
  EXPECT_EQ(it.value(concat.outputs[0]).f32()[7], 2.0f);
}

// Dynamic loss scaling: the state, one check per gradient summed into found_inf, every update
// unscaling by amp.inv_scale and reading found_inf, and amp_update last.
Graph scaled_step(double init_scale, double clip_grad_norm = 0.0) {
  compiler::FrontendOptions front;
  front.sgd.clip_grad_norm = clip_grad_norm;
  front.model = "mlp";
  front.model_options.batch = 2;
  front.model_options.height = front.model_options.width = 4;
  front.precision = DType::F16;
  LossScaling scaling;
  scaling.init_scale = init_scale;
  scaling.growth_interval = 1;  // every clean step doubles the scale
  front.loss_scaling = scaling;
  return compiler::run_frontend(front).graph;
}

TEST(Autocast, LossScalingWiresTheGradScalerIntoTheStep) {
  const Graph g = scaled_step(1024.0);
  const TensorId scale = g.find_tensor("amp.loss_scale");
  const TensorId inv = g.find_tensor("amp.inv_scale");
  ASSERT_TRUE(scale.valid() && inv.valid() && g.find_tensor("amp.growth_tracker").valid());
  EXPECT_EQ(data_of(g, inv).init->f32()[0], 1.0f / 1024.0f);
  size_t checks = 0, updates = 0, seeds = 0;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const Op& op = g.op(OpId(i));
    checks += op.type == OpType::AmpCheck ? 1u : 0u;
    if (op.type == OpType::SoftmaxCeBwd) {
      ++seeds;
      EXPECT_EQ(op.inputs.at(2), scale);
    }
    if (op.type == OpType::Sgd) {
      ++updates;
      EXPECT_EQ(op.inputs.at(3), inv);  // grad_scale
      ASSERT_TRUE(op.inputs.at(5).valid());
      EXPECT_EQ(g.tensor(op.inputs.at(5)).name, "amp.found_inf");
    }
  }
  EXPECT_EQ(seeds, 1u);
  EXPECT_EQ(updates, 6u);
  EXPECT_EQ(checks, updates);
  EXPECT_TRUE(g.find_op("amp.update").valid());
  EXPECT_FALSE(shape_inference(g).changed);
  // The same step without the hold on the updates, for the summary's price of it.
  const Graph plain = without_loss_scaling(g);
  EXPECT_FALSE(plain.find_op("amp.update").valid());
  for (size_t i = 0; i < plain.num_ops(); ++i) {
    const Op& op = plain.op(OpId(i));
    if (op.type != OpType::Sgd) continue;
    EXPECT_FALSE(op.inputs.size() > 5 && op.inputs[5].valid()) << op.name;
    EXPECT_FALSE(op.inputs.size() > 3 && op.inputs[3].valid()) << op.name;
  }
  EXPECT_FALSE(shape_inference(plain).changed);
  EXPECT_EQ(without_loss_scaling(plain).num_ops(), plain.num_ops());
}

// With gradient clipping the norm is the unscaled gradients': each sum of squares times
// inv_scale^2 before clip_grad_norm, the updates unscaling by inv_scale times the clip factor.
// Without loss scaling the step clips the plain sums by the plain factor again.
TEST(Autocast, LossScalingWithClippingTakesTheNormOfTheUnscaledGradients) {
  const Graph g = scaled_step(1024.0, 0.5);
  const TensorId inv = g.find_tensor("amp.inv_scale");
  const TensorId inv_sq = g.find_tensor("amp.inv_scale_sq");
  const TensorId grad_scale = g.find_tensor("amp.clip_grad_scale");
  ASSERT_TRUE(inv.valid() && inv_sq.valid() && grad_scale.valid());
  const Op& clip_factor = g.op(g.tensor(grad_scale).producer);
  EXPECT_EQ(clip_factor.inputs.at(0), inv);
  const Op& clip = g.op(g.tensor(clip_factor.inputs.at(1)).producer);
  ASSERT_EQ(clip.type, OpType::ClipScale);
  const Op& concat = g.op(g.tensor(clip.inputs.at(0)).producer);
  ASSERT_EQ(concat.type, OpType::Concat);
  EXPECT_EQ(concat.inputs.size(), 6u);
  for (TensorId part : concat.inputs) {
    const Op& mul = g.op(g.tensor(part).producer);
    EXPECT_EQ(mul.type, OpType::Mul);
    EXPECT_EQ(mul.inputs.at(1), inv_sq);
    EXPECT_EQ(g.op(g.tensor(mul.inputs.at(0)).producer).type, OpType::ReduceSumSq);
  }
  for (size_t i = 0; i < g.num_ops(); ++i) {
    if (g.op(OpId(i)).type == OpType::Sgd) {
      EXPECT_EQ(g.op(OpId(i)).inputs.at(3), grad_scale);
    }
  }
  EXPECT_FALSE(shape_inference(g).changed);

  const Graph plain = without_loss_scaling(g);
  for (size_t i = 0; i < plain.num_ops(); ++i) {
    const Op& op = plain.op(OpId(i));
    if (op.type == OpType::ClipScale) {
      const Op& sums = plain.op(plain.tensor(op.inputs.at(0)).producer);
      ASSERT_EQ(sums.type, OpType::Concat);
      for (TensorId part : sums.inputs)
        EXPECT_EQ(plain.op(plain.tensor(part).producer).type, OpType::ReduceSumSq);
    }
    if (op.type != OpType::Sgd) continue;
    ASSERT_TRUE(op.inputs.at(3).valid()) << op.name;  // still clipped
    EXPECT_EQ(plain.op(plain.tensor(op.inputs.at(3)).producer).type, OpType::ClipScale);
  }
  EXPECT_FALSE(shape_inference(plain).changed);
}

// A scale that overflows fp16 skips the update and halves; a sound one updates and, with a
// growth interval of 1, doubles.
TEST(Autocast, AnOverflowSkipsTheStepAndHalvesTheScale) {
  for (const double init : {std::ldexp(1.0, 60), 1024.0}) {
    SCOPED_TRACE(init);
    const Graph g = scaled_step(init);
    Interpreter it(g);
    const TensorId w = g.find_tensor("fc1.weight");
    const std::vector<float> before = data_of(g, w).init->f32();
    it.run();
    const bool overflow = init > 65504.0 * 65504.0;
    EXPECT_EQ(it.buffer(g.tensor(w).data).f32() == before, overflow);
    EXPECT_EQ(it.buffer(g.tensor(g.find_tensor("amp.found_inf")).data).f32()[0] != 0.0f, overflow);
    const float scale = it.buffer(g.tensor(g.find_tensor("amp.loss_scale")).data).f32()[0];
    EXPECT_EQ(scale, static_cast<float>(overflow ? init / 2 : init * 2));
    EXPECT_EQ(it.buffer(g.tensor(g.find_tensor("amp.inv_scale")).data).f32()[0], 1.0f / scale);
  }
}

}  // namespace
}  // namespace s2::ir
