// Per-opcode tests of the PPU's functional kernels on small hand-built instructions, against
// the op registry's reference kernels bit for bit (functional_program.h). What the compiler
// never emits (eltwise sub/max/min/axpby, reduce mean/max/sumsq, bn_fwd from statistics) is
// checked against values worked out here.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "tests/simulator/functional_program.h"

namespace s2::sim::functional {
namespace {

using isa::DType;
using isa::Field;
using isa::Opcode;
using isa::Slot;
using isa::TensorDesc;
using test::model_datapath;
using test::Program;

// ---- PPU ------------------------------------------------------------------------------------

TEST(FunctionalBatchNorm, ForwardWithRunningStatsAndReluMatchesTheReference) {
  for (bool running : {true, false}) {
    Program p(Opcode::BnFwd);
    p.set(Slot::X, p.tensor({3, 4, 5, 5}))
        .set(Slot::Gamma, p.tensor({4}))
        .set(Slot::Beta, p.tensor({4}));
    p.set(Slot::Y, p.zeros({3, 4, 5, 5}))
        .set(Slot::Mean, p.zeros({4}))
        .set(Slot::InvStd, p.zeros({4}));
    if (running) p.set(Slot::RunningMean, p.tensor({4})).set(Slot::RunningVar, p.sliced({4}));
    p.field(Field::Act, static_cast<uint32_t>(isa::Activation::Relu));
    p.inst().set_f32(Field::Eps, 1e-3f);
    p.inst().set_f32(Field::BnMomentum, 0.3f);
    EXPECT_TRUE(p.matches_reference()) << "running statistics: " << running;
  }
}

// bn_fwd's pre: the normalised value, rounded to pre's type, that the activation reads.
TEST(FunctionalBatchNorm, ForwardWithPreAndHardswishMatchesTheReference) {
  for (const isa::DType type : {isa::DType::F32, isa::DType::BF16}) {
    Program p(Opcode::BnFwd);
    p.set(Slot::X, p.tensor({3, 4, 5, 5}))
        .set(Slot::Gamma, p.tensor({4}))
        .set(Slot::Beta, p.tensor({4}));
    p.set(Slot::Y, p.zeros({3, 4, 5, 5}, type))
        .set(Slot::Mean, p.zeros({4}))
        .set(Slot::InvStd, p.zeros({4}))
        .set(Slot::Pre, p.zeros({3, 4, 5, 5}, type));
    p.field(Field::Act, static_cast<uint32_t>(isa::Activation::Hardswish));
    p.inst().set_f32(Field::Eps, 1e-3f);
    p.inst().set_f32(Field::BnMomentum, 0.3f);
    EXPECT_TRUE(p.matches_reference()) << isa::dtype_name(type);
  }
}

TEST(FunctionalBatchNorm, ForwardFromStatsUsesTheGivenMoments) {
  Program p(Opcode::BnFwd);
  const TensorDesc x = p.zeros({2, 1, 1, 2}), stats = p.zeros({2, 1}), y = p.zeros({2, 1, 1, 2});
  const TensorDesc mean = p.zeros({1}), invstd = p.zeros({1}), gamma = p.zeros({1}),
                   beta = p.zeros({1});
  p.set(Slot::X, x).set(Slot::Stats, stats).set(Slot::Y, y).set(Slot::Mean, mean);
  p.set(Slot::InvStd, invstd).set(Slot::Gamma, gamma).set(Slot::Beta, beta);
  p.inst().set_f32(Field::Eps, 0.0f);
  DramImage image = DramImage::load(p.exe());
  image.write_f32(x, {1, 2, 3, 4});
  image.write_f32(stats, {8, 24});  // not x's moments: mean 2, var 24/4 - 4 = 2
  image.write_f32(gamma, {2});
  image.write_f32(beta, {1});
  execute_instruction(p.inst(), image, model_datapath());
  EXPECT_EQ(image.read_f32(mean)[0], 2.0f);
  EXPECT_EQ(image.read_f32(invstd)[0], static_cast<float>(1.0 / std::sqrt(2.0)));
  const std::vector<float> yv = image.read_f32(y);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(yv[i],
              static_cast<float>((static_cast<double>(i + 1) - 2.0) / std::sqrt(2.0) * 2.0 + 1.0));
}

TEST(FunctionalBatchNorm, BackwardWithGateMatchesTheReference) {
  for (bool gate : {true, false}) {
    Program p(Opcode::BnBwd);
    p.set(Slot::Dy, p.tensor({2, 3, 4, 4})).set(Slot::X, p.tensor({2, 3, 4, 4}));
    p.set(Slot::Gamma, p.tensor({3}))
        .set(Slot::Mean, p.tensor({3}))
        .set(Slot::InvStd, p.tensor({3}));
    if (gate) p.set(Slot::Gate, p.tensor({2, 3, 4, 4}));
    p.set(Slot::Dx, p.zeros({2, 3, 4, 4}))
        .set(Slot::DGamma, p.zeros({3}))
        .set(Slot::DBeta, p.zeros({3}));
    EXPECT_TRUE(p.matches_reference()) << "gate: " << gate;
  }
}

// bn_bwd's gate_act: another activation's backward before the batch-norm backward, its result
// rounded to dy's type (the reference kernel's batch_norm_bwd with gate_act, bit for bit).
TEST(FunctionalBatchNorm, BackwardWithAnActivationGateMatchesTheReference) {
  for (const DType type : {DType::F32, DType::BF16})
    for (const isa::GateAct act : {isa::GateAct::Relu6, isa::GateAct::Silu, isa::GateAct::Hardswish,
                                   isa::GateAct::GeluTanh}) {
      Program p(Opcode::BnBwd);
      p.set(Slot::Dy, p.tensor({2, 3, 4, 4}, type)).set(Slot::X, p.tensor({2, 3, 4, 4}, type));
      p.set(Slot::Gamma, p.tensor({3}))
          .set(Slot::Mean, p.tensor({3}))
          .set(Slot::InvStd, p.tensor({3}));
      p.set(Slot::Gate, p.tensor({2, 3, 4, 4}, type));
      p.set(Slot::Dx, p.zeros({2, 3, 4, 4}, type))
          .set(Slot::DGamma, p.zeros({3}))
          .set(Slot::DBeta, p.zeros({3}));
      p.field(Field::GateAct, static_cast<uint32_t>(act));
      EXPECT_TRUE(p.matches_reference())
          << isa::dtype_name(type) << " "
          << isa::enum_name(isa::EnumSet::GateAct, static_cast<uint32_t>(act));
    }
}

// ln_fwd over a dense [N,T,D] tensor and over the transposed [N,H*W,C] view of an [N,C,H*W]
// map (ConvNeXt's LayerNorm2d), whose rows are strided.
TEST(FunctionalLayerNorm, ForwardOfDenseAndTransposedRowsMatchesTheReference) {
  for (bool transposed : {false, true}) {
    Program p(Opcode::LnFwd);
    TensorDesc x = p.tensor({2, 6, 5});
    if (transposed) {  // stored [2, 5, 6]: rows of 5 channels, stride 6
      x = p.tensor({2, 5, 6});
      x.shape = {2, 6, 5, 0};
      x.strides = {30, 1, 6, 0};
    }
    p.set(Slot::X, x).set(Slot::Gamma, p.tensor({5})).set(Slot::Beta, p.sliced({5}));
    p.set(Slot::Y, p.zeros({2, 6, 5})).set(Slot::Mean, p.zeros({2, 6}));
    p.set(Slot::InvStd, p.zeros({2, 6}));
    p.inst().set_f32(Field::Eps, 1e-6f);
    EXPECT_TRUE(p.matches_reference()) << "transposed: " << transposed;
  }
}

TEST(FunctionalLayerNorm, ForwardComputesTheDefinition) {
  Program p(Opcode::LnFwd);
  const TensorDesc x = p.zeros({2, 2}), gamma = p.zeros({2}), beta = p.zeros({2}),
                   y = p.zeros({2, 2}), mean = p.zeros({2}), invstd = p.zeros({2});
  p.set(Slot::X, x).set(Slot::Gamma, gamma).set(Slot::Beta, beta).set(Slot::Y, y);
  p.set(Slot::Mean, mean).set(Slot::InvStd, invstd);
  p.inst().set_f32(Field::Eps, 0.0f);
  DramImage image = DramImage::load(p.exe());
  image.write_f32(x, {1, 3, 0, 4});  // rows of mean 2, biased variance 1 and 4
  image.write_f32(gamma, {2, 1});
  image.write_f32(beta, {0.5f, -1});
  execute_instruction(p.inst(), image, model_datapath());
  EXPECT_EQ(image.read_f32(mean), (std::vector<float>{2, 2}));
  EXPECT_EQ(image.read_f32(invstd), (std::vector<float>{1, 0.5f}));
  // (x - 2) * invstd * gamma + beta
  EXPECT_EQ(image.read_f32(y), (std::vector<float>{-1.5f, 0, -1.5f, 0}));
}

TEST(FunctionalLayerNorm, BackwardMatchesTheReference) {
  Program p(Opcode::LnBwd);
  p.set(Slot::Dy, p.tensor({3, 2, 7})).set(Slot::X, p.sliced({3, 2, 7}));
  p.set(Slot::Gamma, p.tensor({7})).set(Slot::Mean, p.tensor({3, 2}));
  p.set(Slot::InvStd, p.tensor({3, 2}));
  p.set(Slot::Dx, p.zeros({3, 2, 7})).set(Slot::DGamma, p.zeros({7}));
  p.set(Slot::DBeta, p.zeros({7}));
  EXPECT_TRUE(p.matches_reference());
}

// softmax over dense rows with scale and causal rows, and with a [N,1,1,L] padding mask read
// through zero strides as [N,H,L,L] (BERT's attention mask): the same bits as the reference.
TEST(FunctionalSoftmax, ForwardWithScaleCausalAndBroadcastMaskMatchesTheReference) {
  for (bool causal : {false, true})
    for (bool masked : {false, true}) {
      Program p(Opcode::Softmax);
      p.set(Slot::X, p.tensor({2, 3, 5, 5}));
      if (masked) {
        TensorDesc mask = p.tensor({2, 5});
        mask.shape = {2, 3, 5, 5};
        mask.strides = {5, 0, 0, 1};
        mask.rank = 4;
        p.set(Slot::Mask, mask);
      }
      p.set(Slot::Y, p.zeros({2, 3, 5, 5})).field(Field::Causal, causal ? 1 : 0);
      p.inst().set_f32(Field::Scale, 0.375f);
      EXPECT_TRUE(p.matches_reference()) << "causal " << causal << " masked " << masked;
    }
}

TEST(FunctionalSoftmax, ForwardComputesTheDefinition) {
  Program p(Opcode::Softmax);
  const TensorDesc x = p.zeros({2, 2}), y = p.zeros({2, 2});
  p.set(Slot::X, x).set(Slot::Y, y).field(Field::Causal, 1);
  p.inst().set_f32(Field::Scale, 0.5f);
  DramImage image = DramImage::load(p.exe());
  image.write_f32(x, {7, 100, 0, 2 * std::log(3.0f)});
  execute_instruction(p.inst(), image, model_datapath());
  // Row 0 keeps column 0 only; row 1 is softmax(0, log 3) = (1/4, 3/4).
  const std::vector<float> got = image.read_f32(y);
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_EQ(got[1], 0.0f);
  EXPECT_NEAR(got[2], 0.25f, 1e-7f);
  EXPECT_NEAR(got[3], 0.75f, 1e-7f);
}

TEST(FunctionalSoftmax, BackwardMatchesTheReference) {
  Program p(Opcode::SoftmaxBwd);
  p.set(Slot::Dy, p.tensor({3, 2, 7})).set(Slot::Y, p.sliced({3, 2, 7}));
  p.set(Slot::Dx, p.zeros({3, 2, 7}));
  p.inst().set_f32(Field::Scale, 0.125f);
  EXPECT_TRUE(p.matches_reference());
}

struct PoolCase {
  uint32_t h, kernel, stride, pad, ceil, include_pad, out;
};
const PoolCase kPoolCases[] = {{8, 2, 2, 0, 0, 1, 4},
                               {7, 3, 2, 1, 0, 1, 4},
                               {7, 3, 2, 1, 0, 0, 4},
                               {6, 3, 2, 1, 1, 0, 4},
                               {5, 5, 1, 0, 0, 1, 1}};

void pool_fields(Program& p, const PoolCase& c, bool avg) {
  p.field(Field::KernelH, c.kernel).field(Field::KernelW, c.kernel);
  p.field(Field::StrideH, c.stride).field(Field::StrideW, c.stride);
  p.field(Field::PadTop, c.pad).field(Field::PadLeft, c.pad).field(Field::PadBottom, c.pad);
  p.field(Field::PadRight, c.pad).field(Field::CeilMode, c.ceil);
  if (avg) p.field(Field::CountIncludePad, c.include_pad);
}

TEST(FunctionalPool, MaxAndAverageForwardAndBackwardMatchTheReference) {
  for (const PoolCase& c : kPoolCases) {
    const std::string what = "h=" + std::to_string(c.h) + " k=" + std::to_string(c.kernel) +
                             " ceil=" + std::to_string(c.ceil);
    Program fwd(Opcode::MaxPoolFwd);
    fwd.set(Slot::X, fwd.tensor({2, 3, c.h, c.h})).set(Slot::Y, fwd.zeros({2, 3, c.out, c.out}));
    fwd.set(Slot::Idx, fwd.zeros({2, 3, c.out, c.out}, DType::I32));
    pool_fields(fwd, c, false);
    EXPECT_TRUE(fwd.matches_reference()) << "maxpool_fwd " << what;
    Program bwd(Opcode::MaxPoolBwd);
    bwd.set(Slot::Dy, bwd.tensor({2, 3, c.out, c.out}));
    bwd.set(Slot::Idx, bwd.tensor({2, 3, c.out, c.out}, DType::I32, c.h * c.h));
    bwd.set(Slot::Dx, bwd.zeros({2, 3, c.h, c.h}));
    pool_fields(bwd, c, false);
    EXPECT_TRUE(bwd.matches_reference()) << "maxpool_bwd " << what;
    Program avg(Opcode::AvgPoolFwd);
    avg.set(Slot::X, avg.tensor({2, 3, c.h, c.h})).set(Slot::Y, avg.zeros({2, 3, c.out, c.out}));
    pool_fields(avg, c, true);
    EXPECT_TRUE(avg.matches_reference()) << "avgpool_fwd " << what;
    Program avgb(Opcode::AvgPoolBwd);
    avgb.set(Slot::Dy, avgb.tensor({2, 3, c.out, c.out}))
        .set(Slot::Dx, avgb.zeros({2, 3, c.h, c.h}));
    pool_fields(avgb, c, true);
    EXPECT_TRUE(avgb.matches_reference()) << "avgpool_bwd " << what;
  }
}

TEST(FunctionalPool, MaxPoolBackwardRejectsAnIndexOutsideThePlane) {
  Program p(Opcode::MaxPoolBwd);
  const TensorDesc idx = p.zeros({1, 1, 1, 1}, DType::I32);
  p.set(Slot::Dy, p.tensor({1, 1, 1, 1})).set(Slot::Idx, idx).set(Slot::Dx, p.zeros({1, 1, 2, 2}));
  pool_fields(p, {2, 2, 2, 0, 0, 1, 1}, false);
  DramImage image = DramImage::load(p.exe());
  image.write_i32(idx, {4});
  try {
    execute_instruction(p.inst(), image, model_datapath());
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("maxpool_bwd: idx 4"), std::string::npos) << e.what();
  }
}

// eltwise ops the compiler emits, through contiguous and strided operands.
TEST(FunctionalEltwise, RegistryOpsMatchTheReference) {
  using E = isa::EltwiseOp;
  for (E op : {E::Add, E::Mul, E::Relu, E::ReluBwd, E::Scale}) {
    Program p(Opcode::Eltwise);
    const bool unary = op == E::Relu || op == E::Scale;
    p.set(Slot::A, p.transposed(6, 5));
    if (!unary) p.set(Slot::B, p.tensor({30}));
    p.set(Slot::Y, p.sliced({5, 6})).field(Field::Op, static_cast<uint32_t>(op));
    p.inst().set_f32(Field::ScaleA, 0.3f);
    p.inst().set_f32(Field::ScaleB, -0.7f);
    EXPECT_TRUE(p.matches_reference()) << "op " << static_cast<int>(op);
  }
}

// eltwise act and act_bwd for every activation function, against the compiler's reference
// kernels (activation and activation_bwd), and the conv epilogue with each act.
TEST(FunctionalEltwise, ActivationsMatchTheReference) {
  using E = isa::EltwiseOp;
  for (const isa::EnumValue& act : isa::enum_values(isa::EnumSet::Activation)) {
    if (act.value == 0) continue;
    for (E op : {E::Act, E::ActBwd}) {
      if (act.value == static_cast<uint32_t>(isa::Activation::Relu)) continue;  // relu's own ops
      Program p(Opcode::Eltwise);
      p.set(Slot::A, p.tensor({40}));
      if (op == E::ActBwd) p.set(Slot::B, p.tensor({40}));
      p.set(Slot::Y, p.zeros({40})).field(Field::Op, static_cast<uint32_t>(op));
      p.field(Field::Act, act.value);
      EXPECT_TRUE(p.matches_reference()) << act.name << " op " << static_cast<int>(op);
    }
    Program conv(Opcode::Conv2d);
    conv.set(Slot::X, conv.tensor({1, 2, 4, 4}))
        .set(Slot::W, conv.tensor({3, 2, 3, 3}))
        .set(Slot::Y, conv.zeros({1, 3, 2, 2}))
        .field(Field::Act, act.value);
    EXPECT_TRUE(conv.matches_reference()) << "conv2d act " << act.name;
  }
}

// dropout_mask: the mask of the step counter's value under the seed, the counter stepped, both
// as the compiler's reference kernel computes them.
TEST(FunctionalDropout, MaskAndCounterMatchTheReference) {
  for (float ratio : {0.0f, 0.2f, 0.5f}) {
    Program p(Opcode::DropoutMask);
    p.set(Slot::Counter, p.tensor({1}, DType::I32, 1000)).set(Slot::Y, p.sliced({3, 7}));
    p.inst().set_f32(Field::Ratio, ratio);
    p.field(Field::Seed, 0xC0FFEEu);
    EXPECT_TRUE(p.matches_reference()) << "ratio " << ratio;
  }
}

std::vector<float> eltwise_of(isa::EltwiseOp op, const std::vector<float>& a,
                              const std::vector<float>& b, float sa = 1, float sb = 1) {
  Program p(Opcode::Eltwise);
  const auto n = static_cast<uint32_t>(a.size());
  const TensorDesc ad = p.zeros({n}), bd = p.zeros({n}), y = p.zeros({n});
  p.set(Slot::A, ad).set(Slot::Y, y).field(Field::Op, static_cast<uint32_t>(op));
  if (!b.empty()) p.set(Slot::B, bd);
  p.inst().set_f32(Field::ScaleA, sa);
  p.inst().set_f32(Field::ScaleB, sb);
  DramImage image = DramImage::load(p.exe());
  image.write_f32(ad, a);
  if (!b.empty()) image.write_f32(bd, b);
  execute_instruction(p.inst(), image, model_datapath());
  return image.read_f32(y);
}

TEST(FunctionalEltwise, OpsWithoutAReferenceKernelComputeTheirDefinition) {
  using E = isa::EltwiseOp;
  const float nan = std::nanf("");
  EXPECT_EQ(eltwise_of(E::Sub, {3, -1}, {1, 0.5f}), (std::vector<float>{2, -1.5f}));
  std::vector<float> mx = eltwise_of(E::Max, {3, nan, 1}, {4, 1, nan});
  EXPECT_EQ(mx[0], 4);
  EXPECT_TRUE(std::isnan(mx[1]) && std::isnan(mx[2]));
  std::vector<float> mn = eltwise_of(E::Min, {3, nan, -2}, {4, 1, nan});
  EXPECT_EQ(mn[0], 3);
  EXPECT_TRUE(std::isnan(mn[1]) && std::isnan(mn[2]));
  // (0.1f * a) and (3 * b) are each rounded before the sum: no fused multiply-add.
  const float a = 1.1f, b = 1e-8f;
  EXPECT_EQ(eltwise_of(E::Axpby, {a}, {b}, 0.1f, 3.0f)[0], 0.1f * a + 3.0f * b);
  EXPECT_EQ(eltwise_of(E::Scale, {2}, {}, 0.5f, 4.0f)[0], 5.0f);
  EXPECT_EQ(eltwise_of(E::ReluBwd, {5, 6}, {0, 1e-30f}), (std::vector<float>{0, 6}));
}

TEST(FunctionalSoftmaxCe, LossGradientAndBothMatchTheReference) {
  for (uint32_t reduction : {0u, 1u})
    for (int outputs = 1; outputs <= 3; ++outputs) {
      Program p(Opcode::SoftmaxCe);
      p.set(Slot::Logits, p.tensor({4, 10})).set(Slot::Labels, p.tensor({4}, DType::I32, 10));
      if (outputs & 1) p.set(Slot::Loss, p.zeros({1}));
      if (outputs & 2) p.set(Slot::DLogits, p.zeros({4, 10}));
      p.field(Field::Reduction, reduction);
      EXPECT_TRUE(p.matches_reference()) << "reduction " << reduction << " outputs " << outputs;
    }
}

// A weighted loss term's gradient: dlogits times the incoming dloss (softmax_ce_bwd's third
// input), the same bits as the reference kernel.
TEST(FunctionalSoftmaxCe, DlossScalesTheGradientAsTheReferenceDoes) {
  for (uint32_t reduction : {0u, 1u}) {
    Program p(Opcode::SoftmaxCe);
    p.set(Slot::Logits, p.tensor({4, 10})).set(Slot::Labels, p.tensor({4}, DType::I32, 10));
    p.set(Slot::DLogits, p.zeros({4, 10})).set(Slot::DLoss, p.tensor({1}));
    p.field(Field::Reduction, reduction);
    EXPECT_TRUE(p.matches_reference()) << "reduction " << reduction;
  }
  Program p(Opcode::SoftmaxCe);
  const TensorDesc logits = p.zeros({2, 4}), labels = p.zeros({2}, DType::I32);
  const TensorDesc dlogits = p.zeros({2, 4}), dloss = p.zeros({1});
  p.set(Slot::Logits, logits).set(Slot::Labels, labels).set(Slot::DLogits, dlogits);
  p.set(Slot::DLoss, dloss);
  DramImage image = DramImage::load(p.exe());
  image.write_i32(labels, {3, 0});
  image.write_f32(dloss, {0.3f});
  execute_instruction(p.inst(), image, model_datapath());
  // Uniform logits: (1/4 - onehot) / 2, times 0.3.
  EXPECT_EQ(image.read_f32(dlogits)[0], 0.25f / 2.0f * 0.3f);
  EXPECT_EQ(image.read_f32(dlogits)[3], -0.75f / 2.0f * 0.3f);
}

TEST(FunctionalSoftmaxCe, UniformLogitsGiveLogOfTheClassCount) {
  Program p(Opcode::SoftmaxCe);
  const TensorDesc logits = p.zeros({2, 4}), labels = p.zeros({2}, DType::I32);
  const TensorDesc loss = p.zeros({1});
  p.set(Slot::Logits, logits).set(Slot::Labels, labels).set(Slot::Loss, loss);
  DramImage image = DramImage::load(p.exe());
  image.write_i32(labels, {3, 0});
  execute_instruction(p.inst(), image, model_datapath());
  EXPECT_FLOAT_EQ(image.read_f32(loss)[0], std::log(4.0f));
  image.write_i32(labels, {1, 4});
  try {
    execute_instruction(p.inst(), image, model_datapath());
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("label 4 of sample 1"), std::string::npos) << e.what();
  }
}

// dlogits written over the logits (pass in-place): the same bits as into a buffer of its own,
// and as the reference.
TEST(FunctionalSoftmaxCe, GradientInPlaceMatchesASeparateBuffer) {
  for (uint32_t reduction : {0u, 1u}) {
    Program apart(Opcode::SoftmaxCe), in_place(Opcode::SoftmaxCe);
    const TensorDesc logits = apart.tensor({4, 10}), labels = apart.tensor({4}, DType::I32, 10);
    const TensorDesc dlogits = apart.zeros({4, 10});
    apart.set(Slot::Logits, logits).set(Slot::Labels, labels).set(Slot::DLogits, dlogits);
    apart.set(Slot::Loss, apart.zeros({1})).field(Field::Reduction, reduction);
    const TensorDesc same = in_place.tensor({4, 10}),
                     labels2 = in_place.tensor({4}, DType::I32, 10);
    in_place.set(Slot::Logits, same).set(Slot::Labels, labels2).set(Slot::DLogits, same);
    in_place.field(Field::Reduction, reduction);
    EXPECT_TRUE(in_place.matches_reference()) << "reduction " << reduction;
    EXPECT_EQ(in_place.result(same), apart.result(dlogits)) << "reduction " << reduction;
  }
}

// Rows labelled ignore_index add no loss and no gradient, and the mean counts the others:
// the same bits as the reference, for the default -100 and for another value.
TEST(FunctionalSoftmaxCe, IgnoredLabelsMatchTheReference) {
  for (int32_t ignore : {-100, 3}) {
    Program p(Opcode::SoftmaxCe);
    const TensorDesc labels = p.zeros({4}, DType::I32);
    p.set(Slot::Logits, p.tensor({4, 10})).set(Slot::Labels, labels);
    p.set(Slot::Loss, p.zeros({1})).set(Slot::DLogits, p.zeros({4, 10}));
    p.field(Field::IgnoreIndex, static_cast<uint32_t>(ignore));
    DramImage image = DramImage::load(p.exe());
    image.write_i32(labels, {ignore, 7, ignore, 0});
    execute_instruction(p.inst(), image, model_datapath());
    for (size_t c = 0; c < 10; ++c)
      EXPECT_EQ(image.read_f32(p.inst().get(Slot::DLogits))[c], 0.0f);
    EXPECT_TRUE(std::isfinite(image.read_f32(p.inst().get(Slot::Loss))[0]));
  }
}

// ---- embedding ------------------------------------------------------------------------------

// gather through ids of rank 1 and 2 and a table read through a transposed view, and
// scatter_add with repeated ids: the same bits as the reference.
TEST(FunctionalEmbedding, GatherAndScatterAddMatchTheReference) {
  for (bool rank2 : {false, true}) {
    Program p(Opcode::Gather);
    const std::vector<uint32_t> ids_shape =
        rank2 ? std::vector<uint32_t>{2, 3} : std::vector<uint32_t>{6};
    std::vector<uint32_t> y_shape = ids_shape;
    y_shape.push_back(5);
    p.set(Slot::Table, p.transposed(7, 5)).set(Slot::Ids, p.tensor(ids_shape, DType::I32, 7));
    p.set(Slot::Y, p.zeros(y_shape));
    EXPECT_TRUE(p.matches_reference()) << "gather, rank2 " << rank2;
    Program q(Opcode::ScatterAdd);
    q.set(Slot::Dy, q.sliced(y_shape)).set(Slot::Ids, q.tensor(ids_shape, DType::I32, 3));
    q.set(Slot::Dw, q.tensor({7, 5}));  // overwritten: zeroed first
    EXPECT_TRUE(q.matches_reference()) << "scatter_add, rank2 " << rank2;
  }
}

TEST(FunctionalEmbedding, RepeatedIdsAccumulateAndBadIdsAreErrors) {
  Program p(Opcode::ScatterAdd);
  const TensorDesc dy = p.zeros({3, 2}), ids = p.zeros({3}, DType::I32), dw = p.tensor({2, 2});
  p.set(Slot::Dy, dy).set(Slot::Ids, ids).set(Slot::Dw, dw);
  DramImage image = DramImage::load(p.exe());
  image.write_f32(dy, {1, 2, 3, 4, 5, 6});
  image.write_i32(ids, {1, 1, 1});
  execute_instruction(p.inst(), image, model_datapath());
  EXPECT_EQ(image.read_f32(dw), (std::vector<float>{0, 0, 9, 12}));
  image.write_i32(ids, {0, 2, 1});
  try {
    execute_instruction(p.inst(), image, model_datapath());
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("id 2 at position 1 of 'ids' is outside the table's rows "
                                         "[0,2)"),
              std::string::npos)
        << e.what();
  }
}

// adamw from a non-zero state (step 4, moments from earlier steps): the same bits as the
// reference kernel, and the step count written back incremented.
TEST(FunctionalAdamW, UpdateMatchesTheReferenceAndCountsTheStep) {
  Program p(Opcode::AdamW);
  const TensorDesc step = p.zeros({1}, DType::I32);
  p.set(Slot::Weight, p.tensor({3, 7})).set(Slot::Grad, p.tensor({3, 7}));
  p.set(Slot::ExpAvg, p.tensor({3, 7})).set(Slot::ExpAvgSq, p.zeros({3, 7}));
  p.set(Slot::Step, step);
  p.inst().set_f32(Field::Lr, 1e-3f);
  p.inst().set_f32(Field::WeightDecay, 0.01f);
  EXPECT_TRUE(p.matches_reference());
  DramImage image = DramImage::load(p.exe());
  image.write_i32(step, {3});
  execute_instruction(p.inst(), image, model_datapath());
  EXPECT_EQ(image.read_i32(step), (std::vector<int32_t>{4}));
}

// Gradient clipping: clip_scale's norm and scale, and both updates multiplying their gradient
// by a grad_scale, bit for bit as the reference kernels.
TEST(FunctionalClip, ScaleAndScaledUpdatesMatchTheReference) {
  for (float max_norm : {1.0f, 100.0f}) {
    Program p(Opcode::ClipScale);
    const TensorDesc scale = p.zeros({1}), norm = p.zeros({1});
    p.set(Slot::SumSq, p.values({3}, {0.91f, 16.0f, 1e-3f}));
    p.set(Slot::GradScale, scale).set(Slot::TotalNorm, norm);
    p.inst().set_f32(Field::MaxNorm, max_norm);
    EXPECT_TRUE(p.matches_reference()) << max_norm;
    DramImage image = p.run_ours();
    const float total = image.read_f32(norm)[0];
    EXPECT_NEAR(total, std::sqrt(0.91 + 16.0 + 1e-3), 1e-6);
    EXPECT_EQ(image.read_f32(scale)[0], max_norm == 100.0f ? 1.0f : 1.0f / (total + 1e-6f));
  }
  Program sgd(Opcode::Sgd);
  sgd.set(Slot::Weight, sgd.tensor({3, 7})).set(Slot::Grad, sgd.tensor({3, 7}));
  sgd.set(Slot::Velocity, sgd.tensor({3, 7})).set(Slot::GradScale, sgd.values({1}, {0.37f}));
  sgd.inst().set_f32(Field::Lr, 0.05f);
  sgd.inst().set_f32(Field::Momentum, 0.9f);
  EXPECT_TRUE(sgd.matches_reference());
  // The scale changes the update: the same instruction without it writes other weights.
  const TensorDesc weight = sgd.inst().operand(Slot::Weight).value();
  const std::vector<float> scaled = sgd.result(weight);
  sgd.inst().clear_operand(Slot::GradScale);
  EXPECT_NE(sgd.result(weight), scaled);
  Program adamw(Opcode::AdamW);
  adamw.set(Slot::Weight, adamw.tensor({3, 7})).set(Slot::Grad, adamw.tensor({3, 7}));
  adamw.set(Slot::ExpAvg, adamw.zeros({3, 7})).set(Slot::ExpAvgSq, adamw.zeros({3, 7}));
  adamw.set(Slot::Step, adamw.zeros({1}, DType::I32));
  adamw.set(Slot::GradScale, adamw.values({1}, {0.37f}));
  adamw.inst().set_f32(Field::Lr, 1e-3f);
  EXPECT_TRUE(adamw.matches_reference());
}

TEST(FunctionalSgd, MomentumWeightDecayAndPlainUpdatesMatchTheReference) {
  for (bool momentum : {true, false}) {
    Program p(Opcode::Sgd);
    p.set(Slot::Weight, p.tensor({3, 7})).set(Slot::Grad, p.sliced({3, 7}));
    if (momentum) p.set(Slot::Velocity, p.tensor({3, 7}));
    p.inst().set_f32(Field::Lr, 0.05f);
    p.inst().set_f32(Field::Momentum, momentum ? 0.9f : 0.0f);
    p.inst().set_f32(Field::WeightDecay, momentum ? 5e-4f : 0.0f);
    EXPECT_TRUE(p.matches_reference()) << "momentum " << momentum;
  }
}

TEST(FunctionalReduce, SumOverEveryAxisSetMatchesTheReference) {
  for (uint32_t axes = 1; axes < 16; ++axes) {
    Program p(Opcode::Reduce);
    const std::vector<uint32_t> shape = {2, 3, 4, 5};
    std::vector<uint32_t> kept;
    for (uint32_t d = 0; d < 4; ++d)
      if (!((axes >> d) & 1u)) kept.push_back(shape[d]);
    if (kept.empty()) kept = {1};
    p.set(Slot::X, p.tensor(shape)).set(Slot::Y, p.zeros(kept));
    p.field(Field::Reduce, static_cast<uint32_t>(isa::ReduceOp::Sum)).field(Field::Axes, axes);
    EXPECT_TRUE(p.matches_reference()) << "axes " << axes;
  }
}

TEST(FunctionalReduce, MeanMaxAndSumOfSquaresComputeTheirDefinition) {
  auto run = [](isa::ReduceOp op, uint32_t axes) {
    Program p(Opcode::Reduce);
    const TensorDesc x = p.zeros({2, 3}), y = p.zeros({axes == 1 ? 3u : 2u});
    p.set(Slot::X, x).set(Slot::Y, y);
    p.field(Field::Reduce, static_cast<uint32_t>(op)).field(Field::Axes, axes);
    DramImage image = DramImage::load(p.exe());
    image.write_f32(x, {1, -2, 3, 4, 5, -6});
    execute_instruction(p.inst(), image, model_datapath());
    return image.read_f32(y);
  };
  using R = isa::ReduceOp;
  EXPECT_EQ(run(R::Mean, 1), (std::vector<float>{2.5f, 1.5f, -1.5f}));
  EXPECT_EQ(run(R::Mean, 2), (std::vector<float>{2.0f / 3.0f, 1.0f}));
  EXPECT_EQ(run(R::Max, 2), (std::vector<float>{3, 5}));
  EXPECT_EQ(run(R::SumSq, 1), (std::vector<float>{17, 29, 45}));
}

}  // namespace
}  // namespace s2::sim::functional
