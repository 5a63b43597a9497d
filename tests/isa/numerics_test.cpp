// The datapath arithmetic (isa/numerics/): flushing, canonical NaNs, the K-tiled PE sum and the
// PPU lane operations, each against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "isa/numerics/epilogue.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/lane_ops.h"
#include "isa/numerics/pe_gemm.h"

namespace s2::numerics {
namespace {

constexpr uint32_t kMinNormal = 0x00800000u;

TEST(Fp32, SubnormalInputsReadAsZeroKeepingTheSign) {
  EXPECT_EQ(bits(load(from_bits(0x00000001u))), 0x00000000u);
  EXPECT_EQ(bits(load(from_bits(0x807FFFFFu))), 0x80000000u);
  EXPECT_EQ(bits(load(from_bits(kMinNormal))), kMinNormal);
  // A subnormal operand contributes nothing: 1 + (smallest subnormal) is exactly 1 anyway, but
  // (smallest subnormal) * 2^100 would be 2^-49 without DAZ.
  EXPECT_EQ(mul_bits(0x00000001u, 0x71800000u), 0x00000000u);
}

TEST(Fp32, ResultsFlushAfterRoundingSoARoundUpToTheSmallestNormalIsKept) {
  // 0x3F7FFFFF * 2^-126 = 2^-126 - 2^-150, a tie between 0x007FFFFF and 0x00800000: rounds up.
  EXPECT_EQ(mul_bits(0x3F7FFFFFu, kMinNormal), kMinNormal);
  // 0x3F7FFFFE * 2^-126 rounds to the subnormal 0x007FFFFF: flushed.
  EXPECT_EQ(mul_bits(0x3F7FFFFEu, kMinNormal), 0x00000000u);
  EXPECT_EQ(mul_bits(0xBF7FFFFEu, kMinNormal), 0x80000000u);
  // A sum that cancels into the subnormal range is flushed too.
  EXPECT_EQ(add_bits(0x00800001u, 0x80800000u), 0x00000000u);
  EXPECT_EQ(bits(add(from_bits(0x00800001u), from_bits(0x80800000u))), 0x00000000u);
}

TEST(Fp32, EveryNaNResultIsTheCanonicalQuietNaN) {
  EXPECT_EQ(mul_bits(0x7F800000u, 0x00000000u), kCanonicalNaN);  // Inf * 0
  EXPECT_EQ(add_bits(0x7F800000u, 0xFF800000u), kCanonicalNaN);  // Inf - Inf
  EXPECT_EQ(add_bits(0xFFC01234u, 0x3F800000u), kCanonicalNaN);  // payload and sign dropped
  EXPECT_EQ(bits(store(from_bits(0xFF812345u))), kCanonicalNaN);
  EXPECT_EQ(add_bits(0x3F800000u, 0xBF800000u), 0x00000000u);  // x + (-x) = +0
}

TEST(PeGemm, SumsEachKTileFromZeroThenAddsItToTheRunningValue) {
  // One output, K = 5, K-tile 2: c = (((c + (0 + p0 + p1)) + (0 + p2 + p3)) + (0 + p4)).
  // Products chosen so that the grouping shows: 1e8, 1, -1e8, 1, 1 (in fp32 1e8 + 1 = 1e8).
  const std::vector<float> a = {1e8f, 1.0f, -1e8f, 1.0f, 1.0f};
  const std::vector<float> b = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  auto run = [&](size_t k_tile) {
    float c = 0.0f;
    KTiledGemm(k_tile).accumulate(1, 1, 5, a.data(), 5, b.data(), 1, &c, 1);
    return c;
  };
  // k_tile 2: t0 = 1e8 + 1 = 1e8, t1 = -1e8 + 1 = -1e8 (rounded), t2 = 1 -> c = 1.
  EXPECT_EQ(run(2), 1.0f);
  // k_tile 1: c = ((((1e8) + 1) - 1e8) + 1) + 1 = 2.
  EXPECT_EQ(run(1), 2.0f);
  // whole K (0): t = 1e8 + 1 - 1e8 + 1 + 1 = 2 in order, c = 2.
  EXPECT_EQ(run(0), 2.0f);
  // k_tile 3: t0 = 1e8 + 1 - 1e8 = 0, t1 = 2 -> c = 2; the K-tile changes the bits only where
  // the grouping changes the rounding.
  EXPECT_EQ(run(3), 2.0f);
}

TEST(PeGemm, ProductsBelowTheNormalRangeFlushInsideTheSum) {
  // 2^-70 * 2^-70 = 2^-140 is subnormal: it must not survive into the sum.
  const float tiny = std::ldexp(1.0f, -70);
  const std::vector<float> a = {tiny, tiny};
  const std::vector<float> b = {tiny, 1.0f};
  float c = 0.0f;
  KTiledGemm(kDefaultKTile).accumulate(1, 1, 2, a.data(), 2, b.data(), 1, &c, 1);
  EXPECT_EQ(c, tiny);
}

TEST(LaneOps, SgdSkipsTermsWhoseCoefficientIsZero) {
  // weight -0, grad +0: with weight decay 0 the term is skipped, so g stays +0 and
  // w = -0 - lr*0 = -0 - 0 = -0.
  float w = -0.0f, v = 0.0f;
  sgd_step({0.5f, 0.0f, 0.0f}, w, 0.0f, &v);
  EXPECT_EQ(bits(w), 0x80000000u);
  // With weight decay, g = 0 + wd*(-0) = +0 + -0 = +0, the same value here; an Inf weight shows
  // the difference: wd * Inf = Inf, not skipped.
  float wi = std::numeric_limits<float>::infinity(), vi = 0.0f;
  sgd_step({0.5f, 0.0f, 0.1f}, wi, 1.0f, &vi);
  EXPECT_TRUE(std::isnan(wi));  // Inf - 0.5 * Inf
  float wm = 1.0f, vm = 2.0f;
  sgd_step({0.5f, 0.9f, 0.0f}, wm, 1.0f, &vm);
  EXPECT_EQ(vm, 0.9f * 2.0f + 1.0f);
  EXPECT_EQ(wm, 1.0f - 0.5f * (0.9f * 2.0f + 1.0f));
}

TEST(LaneOps, MaxMinReluFollowIeeeOrderedComparisons) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(max(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(max(1.0f, nan)));
  EXPECT_EQ(bits(max(0.0f, -0.0f)), 0x80000000u);  // equal: b
  EXPECT_EQ(bits(min(-0.0f, 0.0f)), 0x00000000u);
  EXPECT_EQ(bits(relu(-0.0f)), 0x00000000u);
  EXPECT_EQ(relu(nan), 0.0f);
  EXPECT_EQ(relu_bwd(3.0f, nan), 0.0f);
  EXPECT_EQ(relu_bwd(3.0f, 1e-30f), 3.0f);
}

TEST(Epilogue, StagesRunInOrderBiasResidualReluGate) {
  float y[3] = {1.0f, -1.0f, 2.0f};
  const float residual[3] = {-3.0f, 0.5f, 0.0f};
  const float gate[3] = {1.0f, 1.0f, -1.0f};
  apply_epilogue(y, 3, residual, true, gate);
  EXPECT_EQ(y[0], 0.0f);  // relu(1 - 3)
  EXPECT_EQ(y[1], 0.0f);  // relu(-0.5)
  EXPECT_EQ(y[2], 0.0f);  // gated off
  EXPECT_EQ(epilogue({true, true, true, false}, 1.0f, 2.0f, -4.0f, 0.0f), 0.0f);
  EXPECT_EQ(epilogue({true, true, false, true}, 1.0f, 2.0f, -4.0f, 5.0f), -1.0f);
}

}  // namespace
}  // namespace s2::numerics
