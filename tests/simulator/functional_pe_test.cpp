// Per-opcode tests of the PE array's functional kernels (conv2d and its backward, gemm, bmm)
// on small hand-built instructions, against the op registry's reference kernels bit for bit
// (functional_program.h); PE statistics, which the compiler never emits, against values worked
// out here.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "isa/numerics/activation.h"
#include "isa/numerics/low_precision.h"
#include "simulator/functional/conv.h"
#include "tests/simulator/functional_program.h"

namespace s2::sim::functional {
namespace {

using isa::DType;
using isa::Field;
using isa::Opcode;
using isa::Slot;
using isa::TensorDesc;
using numerics::ConvGeometry;
using numerics::images_per_chunk;
using test::model_datapath;
using test::Program;

// ---- PE array -------------------------------------------------------------------------------

struct ConvCase {
  uint32_t n, c, h, w, k, r, s, stride, pad, dilation, groups;
};

void conv_fields(Program& p, const ConvCase& cc) {
  p.field(Field::StrideH, cc.stride).field(Field::StrideW, cc.stride);
  p.field(Field::PadTop, cc.pad).field(Field::PadLeft, cc.pad);
  p.field(Field::PadBottom, cc.pad).field(Field::PadRight, cc.pad);
  p.field(Field::DilationH, cc.dilation).field(Field::DilationW, cc.dilation);
  p.field(Field::Groups, cc.groups);
}

uint32_t out_size(uint32_t in, const ConvCase& cc, uint32_t kernel) {
  return (in + 2 * cc.pad - cc.dilation * (kernel - 1) - 1) / cc.stride + 1;
}

const ConvCase kConvCases[] = {
    {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1},    // 27 taps: one K-tile
    {2, 8, 9, 9, 6, 3, 3, 2, 1, 1, 1},    // 72 taps: three K-tiles, stride 2
    {1, 8, 10, 10, 4, 3, 3, 1, 2, 2, 2},  // dilation and groups
    {3, 16, 5, 5, 40, 1, 1, 1, 0, 1, 1},  // 1x1, K > 32
};

TEST(FunctionalConv2d, ForwardWithBiasResidualReluMatchesTheReference) {
  for (const ConvCase& cc : kConvCases) {
    Program p(Opcode::Conv2d);
    const uint32_t pp = out_size(cc.h, cc, cc.r), qq = out_size(cc.w, cc, cc.s);
    p.set(Slot::X, p.tensor({cc.n, cc.c, cc.h, cc.w}))
        .set(Slot::W, p.tensor({cc.k, cc.c / cc.groups, cc.r, cc.s}))
        .set(Slot::Bias, p.tensor({cc.k}))
        .set(Slot::Residual, p.tensor({cc.n, cc.k, pp, qq}))
        .set(Slot::Y, p.zeros({cc.n, cc.k, pp, qq}));
    conv_fields(p, cc);
    p.field(Field::Act, static_cast<uint32_t>(isa::Activation::Relu));
    EXPECT_TRUE(p.matches_reference()) << "c=" << cc.c << " k=" << cc.k;
    p.inst().clear_operand(Slot::Bias);
    p.inst().clear_operand(Slot::Residual);
    p.field(Field::Act, 0);
    EXPECT_TRUE(p.matches_reference()) << "plain, c=" << cc.c << " k=" << cc.k;
  }
}

TEST(FunctionalConv2d, BackwardDataWithResidualAndGateMatchesTheReference) {
  for (const ConvCase& cc : kConvCases) {
    Program p(Opcode::Conv2dBwdData);
    const uint32_t pp = out_size(cc.h, cc, cc.r), qq = out_size(cc.w, cc, cc.s);
    p.set(Slot::Dy, p.tensor({cc.n, cc.k, pp, qq}))
        .set(Slot::W, p.tensor({cc.k, cc.c / cc.groups, cc.r, cc.s}))
        .set(Slot::Residual, p.tensor({cc.n, cc.c, cc.h, cc.w}))
        .set(Slot::Gate, p.tensor({cc.n, cc.c, cc.h, cc.w}))
        .set(Slot::Dx, p.zeros({cc.n, cc.c, cc.h, cc.w}));
    conv_fields(p, cc);
    EXPECT_TRUE(p.matches_reference()) << "c=" << cc.c << " k=" << cc.k;
  }
}

TEST(FunctionalConv2d, BackwardWeightWithResidualMatchesTheReference) {
  for (const ConvCase& cc : kConvCases) {
    Program p(Opcode::Conv2dBwdWeight);
    const uint32_t pp = out_size(cc.h, cc, cc.r), qq = out_size(cc.w, cc, cc.s);
    p.set(Slot::X, p.tensor({cc.n, cc.c, cc.h, cc.w}))
        .set(Slot::Dy, p.tensor({cc.n, cc.k, pp, qq}))
        .set(Slot::Residual, p.tensor({cc.k, cc.c / cc.groups, cc.r, cc.s}))
        .set(Slot::Dw, p.zeros({cc.k, cc.c / cc.groups, cc.r, cc.s}));
    conv_fields(p, cc);
    EXPECT_TRUE(p.matches_reference()) << "c=" << cc.c << " k=" << cc.k;
  }
}

// Large enough that one image fills an im2col chunk: the weight gradient's running sum then
// crosses a chunk boundary, where its K-tiles restart. The chunking must be the reference's.
TEST(FunctionalConv2d, BackwardWeightAcrossImageChunksMatchesTheReference) {
  const ConvCase cc{3, 64, 52, 52, 2, 3, 3, 1, 1, 1, 1};
  ConvGeometry g;
  g.n = 3, g.c = 64, g.r = g.s = 3, g.p = g.q = 52, g.k = 2;
  ASSERT_EQ(images_per_chunk(g), 2u);  // 2^22 / (576 taps * 2704 pixels) = 2.7: chunks {2, 1}
  Program p(Opcode::Conv2dBwdWeight);
  p.set(Slot::X, p.tensor({cc.n, cc.c, cc.h, cc.w}))
      .set(Slot::Dy, p.tensor({cc.n, cc.k, 52, 52}))
      .set(Slot::Dw, p.zeros({cc.k, cc.c, cc.r, cc.s}));
  conv_fields(p, cc);
  EXPECT_TRUE(p.matches_reference());
}

TEST(FunctionalConv2d, ImagesPerChunkFollowsTheImageSize) {
  ConvGeometry g;
  g.n = 8, g.c = 4, g.r = g.s = 3, g.p = g.q = 8;  // 36 taps * 64 pixels = 2304 per image
  EXPECT_EQ(images_per_chunk(g), 8u);              // 2^22 / 2304 = 1820, clamped to N
  g.c = 1024, g.p = g.q = 32;                      // 9216 taps * 1024 = 9437184 per image
  EXPECT_EQ(images_per_chunk(g), 1u);
  g.c = 64, g.p = g.q = 16;  // 576 * 256 = 147456: 28 images per chunk
  g.n = 64;
  EXPECT_EQ(images_per_chunk(g), 28u);
}

// A 1x1 convolution of one pixel is a dot product: 40 channels = K-tiles of 32 and 8. With
// values whose sums round, the tiled order gives (tile0) + (tile1), not a plain running sum.
TEST(FunctionalConv2d, SumsKTilesOfThirtyTwoThenAddsTheTiles) {
  Program p(Opcode::Conv2d);
  const TensorDesc x = p.zeros({1, 40, 1, 1}), w = p.zeros({1, 40, 1, 1});
  const TensorDesc y = p.zeros({1, 1, 1, 1});
  p.set(Slot::X, x).set(Slot::W, w).set(Slot::Y, y);
  DramImage image = DramImage::load(p.exe());
  std::vector<float> xv(40, 1.0f), wv(40, 1.0f);
  xv[0] = 1e8f;    // tile 0: 1e8 + 31 ones, each lost to rounding -> 1e8
  xv[32] = -1e8f;  // tile 1: -1e8 + 7 ones -> -1e8; tile0 + tile1 = 0
  image.write_f32(x, xv);
  image.write_f32(w, wv);
  execute_instruction(p.inst(), image, model_datapath());
  EXPECT_EQ(image.read_f32(y)[0], 0.0f);  // a running sum would give 7 (1e8 - 1e8 + 7 ones)
}

TEST(FunctionalConv2d, StatsAreTheChannelSumsOfTheFinalOutput) {
  Program p(Opcode::Conv2d);
  const TensorDesc y = p.zeros({2, 3, 4, 4}), stats = p.zeros({2, 3});
  p.set(Slot::X, p.tensor({2, 2, 4, 4})).set(Slot::W, p.tensor({3, 2, 1, 1})).set(Slot::Y, y);
  p.set(Slot::Stats, stats).field(Field::Act, static_cast<uint32_t>(isa::Activation::Relu));
  const DramImage image = p.run_ours();
  const std::vector<float> yv = image.read_f32(y), sv = image.read_f32(stats);
  for (size_t k = 0; k < 3; ++k) {
    float sum = 0.0f, sq = 0.0f;
    for (size_t n = 0; n < 2; ++n)
      for (size_t t = 0; t < 16; ++t) {
        const float v = yv[(n * 3 + k) * 16 + t];
        EXPECT_GE(v, 0.0f);
        sum += v;
        sq += v * v;
      }
    EXPECT_EQ(sv[k], sum);
    EXPECT_EQ(sv[3 + k], sq);
  }
}

// The pre operand holds the activation's input (conv + bias + residual) rounded to pre's type,
// and y is the activation of that rounded value: what conv2d without act, then a separate
// activation reading its output, would write. Bit for bit with the reference kernel.
TEST(FunctionalConv2d, PreHoldsTheActivationsInputInItsType) {
  for (const DType type : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(isa::dtype_name(type));
    auto build = [type](bool with_pre) {
      Program p(Opcode::Conv2d);
      p.set(Slot::X, p.tensor({2, 3, 5, 5}))
          .set(Slot::W, p.tensor({4, 3, 3, 3}))
          .set(Slot::Bias, p.tensor({4}))
          .set(Slot::Residual, p.tensor({2, 4, 3, 3}))
          .set(Slot::Y, p.zeros({2, 4, 3, 3}, type));
      conv_fields(p, {2, 3, 5, 5, 4, 3, 3, 1, 0, 1, 1});
      if (with_pre) {
        p.set(Slot::Pre, p.zeros({2, 4, 3, 3}, type));
        p.field(Field::Act, static_cast<uint32_t>(isa::Activation::Silu));
      }
      return p;
    };
    Program fused = build(true);
    EXPECT_TRUE(fused.matches_reference());
    const DramImage image = fused.run_ours();
    const std::vector<float> pre = image.read_f32(fused.inst().get(Slot::Pre));
    const std::vector<float> y = image.read_f32(fused.inst().get(Slot::Y));
    Program plain = build(false);
    EXPECT_EQ(plain.result(plain.inst().get(Slot::Y)), pre);
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_EQ(y[i], numerics::round_to(type, numerics::act_fwd(isa::Activation::Silu, pre[i])))
          << i;
  }
}

TEST(FunctionalGemm, PreWithGeluMatchesTheReference) {
  for (const DType type : {DType::F32, DType::BF16, DType::F16}) {
    Program p(Opcode::Gemm);
    p.set(Slot::A, p.tensor({5, 40}))
        .set(Slot::B, p.tensor({40, 7}))
        .set(Slot::Bias, p.tensor({7}))
        .set(Slot::Y, p.zeros({5, 7}, type))
        .set(Slot::Pre, p.zeros({5, 7}, type));
    p.field(Field::Act, static_cast<uint32_t>(isa::Activation::Gelu));
    EXPECT_TRUE(p.matches_reference()) << isa::dtype_name(type);
  }
}

TEST(FunctionalGemm, EveryTransposeWithBiasResidualGateReluMatchesTheReference) {
  const uint32_t m = 5, n = 7, k = 70;  // K-tiles of 32, 32 and 6
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Program p(Opcode::Gemm);
      p.set(Slot::A, ta ? p.tensor({k, m}) : p.tensor({m, k}))
          .set(Slot::B, tb ? p.tensor({n, k}) : p.tensor({k, n}))
          .set(Slot::Bias, p.tensor({n}))
          .set(Slot::Residual, p.tensor({m, n}))
          .set(Slot::Gate, p.tensor({m, n}))
          .set(Slot::Y, p.zeros({m, n}));
      p.field(Field::TransA, static_cast<uint32_t>(ta))
          .field(Field::TransB, static_cast<uint32_t>(tb));
      p.field(Field::Act, static_cast<uint32_t>(isa::Activation::Relu));
      EXPECT_TRUE(p.matches_reference()) << "trans_a=" << ta << " trans_b=" << tb;
    }
}

// Strided descriptors: a transposed view of a and a sliced view of b and y read and write
// exactly the elements a dense copy would.
TEST(FunctionalGemm, TransposedAndSlicedDescriptorsMatchTheReference) {
  Program p(Opcode::Gemm);
  p.set(Slot::A, p.transposed(6, 40)).set(Slot::B, p.sliced({40, 5}));
  p.set(Slot::Y, p.sliced({6, 5}));
  EXPECT_TRUE(p.matches_reference());
  const TensorDesc a = p.inst().get(Slot::A);
  DramImage image = DramImage::load(p.exe());
  const std::vector<float> av = image.read_f32(a);
  const std::vector<float> stored =
      image.read_f32(TensorDesc::contiguous(a.addr, DType::F32, {40, 6}));
  for (size_t i = 0; i < 6; ++i)
    for (size_t j = 0; j < 40; ++j)
      ASSERT_EQ(av[i * 40 + j], stored[j * 6 + i]);
}

TEST(FunctionalGemm, SmallProductIsExact) {
  Program p(Opcode::Gemm);
  const TensorDesc a = p.zeros({2, 2}), b = p.zeros({2, 2}), bias = p.zeros({2}),
                   y = p.zeros({2, 2});
  p.set(Slot::A, a).set(Slot::B, b).set(Slot::Bias, bias).set(Slot::Y, y).field(Field::TransB, 1);
  DramImage image = DramImage::load(p.exe());
  image.write_f32(a, {1, 2, 3, 4});
  image.write_f32(b, {5, 6, 7, 8});  // stored [N, K]: b^T = [[5, 7], [6, 8]]
  image.write_f32(bias, {0.5f, -100});
  execute_instruction(p.inst(), image, model_datapath());
  EXPECT_EQ(image.read_f32(y), (std::vector<float>{17.5f, -77, 39.5f, -47}));
}

// bmm over two batch dimensions for every transpose combination, K spanning three K-tiles.
TEST(FunctionalBmm, EveryTransposeMatchesTheReference) {
  const uint32_t m = 5, n = 7, k = 70;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Program p(Opcode::Bmm);
      p.set(Slot::A, ta ? p.tensor({2, 3, k, m}) : p.tensor({2, 3, m, k}))
          .set(Slot::B, tb ? p.tensor({2, 3, n, k}) : p.tensor({2, 3, k, n}))
          .set(Slot::Y, p.zeros({2, 3, m, n}));
      p.field(Field::TransA, static_cast<uint32_t>(ta))
          .field(Field::TransB, static_cast<uint32_t>(tb));
      EXPECT_TRUE(p.matches_reference()) << "trans_a=" << ta << " trans_b=" << tb;
    }
}

// Attention's layout: q and k are head splits of [N, T, H, dh] projections read as
// [N, H, T, dh] through strides, the scores' batch 0 matrix of b repeated through a zero
// batch stride; the same bits as the reference.
TEST(FunctionalBmm, HeadSplitAndRepeatedOperandsMatchTheReference) {
  const uint32_t n = 2, t = 6, h = 3, dh = 8;
  Program p(Opcode::Bmm);
  TensorDesc q = p.tensor({n, t, h, dh});
  q.shape = {n, h, t, dh};
  q.strides = {t * h * dh, dh, h * dh, 1};
  TensorDesc k = p.tensor({n, t, h, dh});
  k.shape = {n, h, t, dh};
  k.strides = {0, dh, h * dh, 1};
  p.set(Slot::A, q).set(Slot::B, k).set(Slot::Y, p.zeros({n, h, t, t}));
  p.field(Field::TransB, 1);
  EXPECT_TRUE(p.matches_reference());
}

}  // namespace
}  // namespace s2::sim::functional
