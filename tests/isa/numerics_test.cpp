// The datapath arithmetic (isa/numerics/): flushing, canonical NaNs, the K-tiled PE sum, the
// PPU lane operations, pooling and batch norm, each against values worked out by hand (batch
// norm's backward also against finite differences of its forward).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "isa/common/float_bits.h"
#include "isa/numerics/batch_norm.h"
#include "isa/numerics/epilogue.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/lane_ops.h"
#include "isa/numerics/low_precision.h"
#include "isa/numerics/pe_gemm.h"
#include "isa/numerics/pool.h"

namespace s2::numerics {
namespace {

constexpr uint32_t kMinNormal = 0x00800000u;

TEST(Fp32, SubnormalInputsReadAsZeroKeepingTheSign) {
  EXPECT_EQ(f32_bits(load(f32_from_bits(0x00000001u))), 0x00000000u);
  EXPECT_EQ(f32_bits(load(f32_from_bits(0x807FFFFFu))), 0x80000000u);
  EXPECT_EQ(f32_bits(load(f32_from_bits(kMinNormal))), kMinNormal);
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
  EXPECT_EQ(f32_bits(add(f32_from_bits(0x00800001u), f32_from_bits(0x80800000u))), 0x00000000u);
}

TEST(Fp32, EveryNaNResultIsTheCanonicalQuietNaN) {
  EXPECT_EQ(mul_bits(0x7F800000u, 0x00000000u), kCanonicalNaN);  // Inf * 0
  EXPECT_EQ(add_bits(0x7F800000u, 0xFF800000u), kCanonicalNaN);  // Inf - Inf
  EXPECT_EQ(add_bits(0xFFC01234u, 0x3F800000u), kCanonicalNaN);  // payload and sign dropped
  EXPECT_EQ(f32_bits(store(f32_from_bits(0xFF812345u))), kCanonicalNaN);
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
  EXPECT_EQ(f32_bits(w), 0x80000000u);
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
  EXPECT_EQ(f32_bits(max(0.0f, -0.0f)), 0x80000000u);  // equal: b
  EXPECT_EQ(f32_bits(min(-0.0f, 0.0f)), 0x00000000u);
  EXPECT_EQ(f32_bits(relu(-0.0f)), 0x00000000u);
  EXPECT_EQ(relu(nan), 0.0f);
  EXPECT_EQ(relu_bwd(3.0f, nan), 0.0f);
  EXPECT_EQ(relu_bwd(3.0f, 1e-30f), 3.0f);
}

TEST(Epilogue, StagesRunInOrderBiasResidualReluGate) {
  float y[3] = {1.0f, -1.0f, 2.0f};
  const float residual[3] = {-3.0f, 0.5f, 0.0f};
  const float gate[3] = {1.0f, 1.0f, -1.0f};
  apply_epilogue(y, 3, residual, isa::Activation::Relu, gate);
  EXPECT_EQ(y[0], 0.0f);  // relu(1 - 3)
  EXPECT_EQ(y[1], 0.0f);  // relu(-0.5)
  EXPECT_EQ(y[2], 0.0f);  // gated off
  EXPECT_EQ(epilogue({true, true, isa::Activation::Relu, false}, 1.0f, 2.0f, -4.0f, 0.0f), 0.0f);
  EXPECT_EQ(epilogue({true, true, isa::Activation::None, true}, 1.0f, 2.0f, -4.0f, 5.0f), -1.0f);
  EXPECT_EQ(epilogue({true, false, isa::Activation::Relu6, false}, 5.0f, 2.0f, 0.0f, 0.0f), 6.0f);
}

// One plane of H x W pooled by a square kernel k, stride st, the same padding on every side.
PoolGeometry pool_geometry(int64_t h, int64_t w, int64_t p, int64_t q, int64_t k, int64_t st,
                           int64_t pad) {
  PoolGeometry g;
  g.planes = 1, g.h = h, g.w = w, g.p = p, g.q = q;
  g.kh = g.kw = k, g.sh = g.sw = st;
  g.pt = g.pl = g.pb = g.pr = pad;
  return g;
}

TEST(Pool, MaxPoolTiesPickTheFirstInRowMajorOrderAndANaNWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Two planes of 2x2, one 2x2 window each: the plane offset shows in y, not in the indices.
  PoolGeometry g = pool_geometry(2, 2, 1, 1, 2, 2, 0);
  g.planes = 3;
  const float x[12] = {1, 5, 5, 2, /**/ 3, 3, 3, 3, /**/ 1, nan, 9, 2};
  float y[3];
  int32_t at[3];
  max_pool2d_forward(g, x, y, at);
  EXPECT_EQ(y[0], 5.0f);
  EXPECT_EQ(at[0], 1);  // 5 at index 1 and 2: the first wins
  EXPECT_EQ(y[1], 3.0f);
  EXPECT_EQ(at[1], 0);
  EXPECT_TRUE(std::isnan(y[2]));  // 9 > NaN is false: the NaN stays
  EXPECT_EQ(at[2], 1);
  float y_only[3];
  max_pool2d_forward(g, x, y_only, nullptr);  // indices not wanted
  EXPECT_EQ(y_only[0], 5.0f);
}

TEST(Pool, MaxPoolPaddingNeverWins) {
  // 3x3 input, 3x3 window, stride 2, padding 1: P = Q = (3 + 2 - 3) / 2 + 1 = 2. Every value
  // is negative, so a padding zero would win if it took part.
  const PoolGeometry g = pool_geometry(3, 3, 2, 2, 3, 2, 1);
  const float x[9] = {-1, -2, -3, -4, -5, -6, -7, -8, -9};
  float y[4];
  int32_t at[4];
  max_pool2d_forward(g, x, y, at);
  // Windows clipped to the input: rows/cols [0,2) and [1,3).
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(at[0], 0);
  EXPECT_EQ(y[1], -2.0f);
  EXPECT_EQ(at[1], 1);
  EXPECT_EQ(y[2], -4.0f);
  EXPECT_EQ(at[2], 3);
  EXPECT_EQ(y[3], -5.0f);
  EXPECT_EQ(at[3], 4);
}

TEST(Pool, MaxPoolBackwardAddsEachGradientAtItsIndex) {
  PoolGeometry g = pool_geometry(2, 2, 1, 2, 1, 1, 0);  // the geometry only sizes the planes
  g.planes = 2;
  const float dy[4] = {1, 2, 3, 4};
  const int32_t at[4] = {3, 3, 0, 2};
  float dx[8];
  std::fill(dx, dx + 8, 7.0f);  // overwritten, not accumulated into
  EXPECT_EQ(max_pool2d_backward(g, dy, at, dx), std::nullopt);
  const float want[8] = {0, 0, 0, 3, /**/ 3, 0, 4, 0};
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(dx[i], want[i]) << i;
}

TEST(Pool, MaxPoolBackwardReportsTheFirstIndexOutsideItsPlane) {
  PoolGeometry g = pool_geometry(2, 2, 1, 2, 1, 1, 0);
  g.planes = 2;
  const float dy[4] = {1, 2, 3, 4};
  float dx[8];
  const int32_t too_big[4] = {0, 1, 4, 5};  // 4 is inside the buffer but not the plane
  EXPECT_EQ(max_pool2d_backward(g, dy, too_big, dx), std::optional<size_t>(2));
  const int32_t negative[4] = {0, -1, 0, -1};
  EXPECT_EQ(max_pool2d_backward(g, dy, negative, dx), std::optional<size_t>(1));
}

TEST(Pool, AvgPoolDivisorCountsPaddingOnlyWithCountIncludePad) {
  const PoolGeometry g = pool_geometry(3, 3, 2, 2, 3, 2, 1);
  const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float y[4];
  // Window (0,0) covers rows/cols -1..1: 9 positions, 4 of them inside: 1+2+4+5 = 12.
  // Window (1,1) covers rows/cols 1..3: 9 positions, 4 inside: 5+6+8+9 = 28.
  avg_pool2d_forward(g, true, x, y);
  EXPECT_EQ(y[0], 12.0f / 9.0f);
  EXPECT_EQ(y[1], 16.0f / 9.0f);  // 2+3+5+6
  EXPECT_EQ(y[3], 28.0f / 9.0f);
  avg_pool2d_forward(g, false, x, y);
  EXPECT_EQ(y[0], 3.0f);
  EXPECT_EQ(y[1], 4.0f);
  EXPECT_EQ(y[3], 7.0f);
}

TEST(Pool, AvgPoolWindowPastTheFarPaddingIsClippedThere) {
  // ceil_mode: a 3x1 input, 2x1 windows, stride 2, no padding gives P = 2; the second window
  // starts at row 2 and would reach row 3, beyond input + padding: its divisor is 1 either way.
  PoolGeometry g = pool_geometry(3, 1, 2, 1, 2, 2, 0);
  g.kw = g.sw = 1;
  const float x[3] = {1, 2, 3};
  float y[2];
  for (bool include_pad : {true, false}) {
    avg_pool2d_forward(g, include_pad, x, y);
    EXPECT_EQ(y[0], 1.5f);
    EXPECT_EQ(y[1], 3.0f);
  }
}

TEST(Pool, AvgPoolBackwardSpreadsEachGradientOverItsWindow) {
  // 1x3 input, 1x2 windows at stride 1 overlap on the middle element.
  PoolGeometry g = pool_geometry(1, 3, 1, 2, 1, 1, 0);
  g.kw = 2;
  const float dy[2] = {2, 4};
  float dx[3];
  avg_pool2d_backward(g, true, dy, dx);
  EXPECT_EQ(dx[0], 1.0f);
  EXPECT_EQ(dx[1], 3.0f);  // 2/2 + 4/2
  EXPECT_EQ(dx[2], 2.0f);
  // With padding, count_include_pad changes the divisor of the edge windows: 1x1 input,
  // 1x2 window, padding 1 on the right only -> one window of 2 positions, 1 inside.
  PoolGeometry edge = pool_geometry(1, 1, 1, 1, 1, 1, 0);
  edge.kw = 2, edge.pr = 1;
  const float one = 6.0f;
  float d;
  avg_pool2d_backward(edge, true, &one, &d);
  EXPECT_EQ(d, 3.0f);
  avg_pool2d_backward(edge, false, &one, &d);
  EXPECT_EQ(d, 6.0f);
}

// Batch-norm forward over x [N, C, S] with the running statistics updated in place.
struct BnRun {
  std::vector<float> y, mean, invstd, running_mean, running_var;
};

BnRun bn_forward(const BnGeometry& g, const std::vector<float>& x, const std::vector<float>& gamma,
                 const std::vector<float>& beta, float eps, float momentum,
                 const float* stats = nullptr) {
  BnRun r;
  r.y.resize(x.size());
  r.mean.resize(g.c);
  r.invstd.resize(g.c);
  r.running_mean.assign(g.c, 1.0f);
  r.running_var.assign(g.c, 4.0f);
  BnForwardArgs a;
  a.x = x.data(), a.gamma = gamma.data(), a.beta = beta.data(), a.stats = stats;
  a.running_mean_in = a.running_mean_out = r.running_mean.data();
  a.running_var_in = a.running_var_out = r.running_var.data();
  a.eps = eps, a.momentum = momentum;
  a.y = r.y.data(), a.saved_mean = r.mean.data(), a.saved_invstd = r.invstd.data();
  batch_norm_forward(g, a);
  return r;
}

TEST(BatchNorm, ConstantChannelNormalisesToBeta) {
  // N=2, C=2, S=2: channel 0 is all 5 (mean 5, var 0), channel 1 is {1, 3, 1, 3}.
  const BnGeometry g{2, 2, 2};
  const std::vector<float> x = {5, 5, 1, 3, /**/ 5, 5, 1, 3};
  const BnRun r = bn_forward(g, x, {2, 1}, {0.5f, 0}, 0.25f, 0.5f);
  EXPECT_EQ(r.mean[0], 5.0f);
  EXPECT_EQ(r.invstd[0], 2.0f);  // 1 / sqrt(0 + 0.25)
  for (size_t i : {size_t{0}, size_t{1}, size_t{4}, size_t{5}})
    EXPECT_EQ(r.y[i], 0.5f) << i;
  EXPECT_EQ(r.running_mean[0], 3.0f);  // 0.5 * 1 + 0.5 * 5
  EXPECT_EQ(r.running_var[0], 2.0f);   // 0.5 * 4 + 0.5 * 0
  // Channel 1: mean 2, biased var 1, unbiased 4/3; invstd = 1 / sqrt(1.25).
  EXPECT_EQ(r.mean[1], 2.0f);
  EXPECT_EQ(r.invstd[1], static_cast<float>(1.0 / std::sqrt(1.25)));
  EXPECT_EQ(r.y[2], static_cast<float>(-1.0 / std::sqrt(1.25)));
  EXPECT_EQ(r.y[7], static_cast<float>(1.0 / std::sqrt(1.25)));
  EXPECT_EQ(r.running_mean[1], 1.5f);
  EXPECT_EQ(r.running_var[1], static_cast<float>(0.5 * 4.0 + 0.5 * (4.0 / 3.0)));
}

TEST(BatchNorm, NormalisesInDoubleAndRoundsOnce) {
  // 1 + 2^-23 and 1 - 2^-24 around 1: in fp32, the deviations from a rounded mean would be
  // off; in double mean = 1 + 2^-25 exactly and y is the rounding of the exact value.
  const BnGeometry g{1, 1, 2};
  const float hi = 1.0f + std::ldexp(1.0f, -23), lo = 1.0f - std::ldexp(1.0f, -24);
  const BnRun r = bn_forward(g, {hi, lo}, {1}, {0}, 0.0f, 0.0f);
  const double mean = (static_cast<double>(hi) + static_cast<double>(lo)) / 2;
  const double d = static_cast<double>(hi) - mean;  // 3 * 2^-25
  EXPECT_EQ(r.mean[0], static_cast<float>(mean));
  EXPECT_EQ(r.invstd[0], static_cast<float>(1.0 / d));
  EXPECT_EQ(r.y[0], 1.0f);
  EXPECT_EQ(r.y[1], -1.0f);
  EXPECT_EQ(r.running_mean[0], 1.0f);  // momentum 0 keeps the running values
  EXPECT_EQ(r.running_var[0], 4.0f);
}

TEST(BatchNorm, StatsOperandReplacesTheBatchMoments) {
  const BnGeometry g{1, 1, 4};
  const std::vector<float> x = {1, 2, 3, 4};
  // sum 0, sum of squares 4 over 4 values: mean 0, var 1 -> y = x.
  const float stats[2] = {0, 4};
  const BnRun r = bn_forward(g, x, {1}, {0}, 0.0f, 1.0f, stats);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(r.y[i], x[i]) << i;
  EXPECT_EQ(r.running_var[0], 4.0f / 3.0f);  // var * count / (count - 1), momentum 1
  // A sum of squares below count * mean^2 (rounding in the PE epilogue) clamps var at 0.
  const float skewed[2] = {4, 3};  // mean 1, sumsq / count - 1 = -0.25
  const BnRun c = bn_forward(g, x, {1}, {0}, 0.25f, 1.0f, skewed);
  EXPECT_EQ(c.invstd[0], 2.0f);
  EXPECT_EQ(c.running_var[0], 0.0f);
}

TEST(BatchNorm, NullRunningOutputsSkipTheUpdate) {
  const BnGeometry g{2, 1, 1};
  const std::vector<float> x = {1, 3}, gamma = {2}, beta = {1};
  float y[2], mean, invstd;
  BnForwardArgs a;
  a.x = x.data(), a.gamma = gamma.data(), a.beta = beta.data();
  a.y = y, a.saved_mean = &mean, a.saved_invstd = &invstd;
  batch_norm_forward(g, a);  // eps 0: mean 2, var 1, invstd 1
  EXPECT_EQ(y[0], -1.0f);    // -1 * 2 + 1
  EXPECT_EQ(y[1], 3.0f);
}

TEST(BatchNorm, BackwardMatchesHandValuesAndFiniteDifferences) {
  // N=2, C=2, S=3; loss L = sum_i w_i * y_i, so dy = w.
  const BnGeometry g{2, 2, 3};
  const std::vector<float> x = {0.3f, -1.2f, 2.0f,  0.7f,  0.1f, -0.4f,
                                1.1f, 0.5f,  -0.8f, -1.5f, 0.9f, 0.2f};
  const std::vector<float> w = {1.0f,   -0.5f, 0.25f, 2.0f, -1.0f, 0.5f,
                                -0.75f, 1.5f,  0.3f,  0.6f, -0.2f, 1.2f};
  const std::vector<float> gamma = {1.5f, -0.5f}, beta = {0.1f, 0.2f};
  const float eps = 1e-5f;
  const BnRun r = bn_forward(g, x, gamma, beta, eps, 0.1f);
  std::vector<float> dx(x.size()), dgamma(2), dbeta(2);
  batch_norm_backward(g, w.data(), x.data(), gamma.data(), r.mean.data(), r.invstd.data(),
                      dx.data(), dgamma.data(), dbeta.data());
  // dbeta is the sum of dy per channel (channel 0 is elements 0-2 and 6-8).
  EXPECT_FLOAT_EQ(dbeta[0], 1.0f - 0.5f + 0.25f - 0.75f + 1.5f + 0.3f);
  EXPECT_FLOAT_EQ(dbeta[1], 2.0f - 1.0f + 0.5f + 0.6f - 0.2f + 1.2f);
  auto loss = [&](const std::vector<float>& xv, const std::vector<float>& gv) {
    const BnRun f = bn_forward(g, xv, gv, beta, eps, 0.1f);
    double l = 0;
    for (size_t i = 0; i < xv.size(); ++i)
      l += static_cast<double>(w[i]) * static_cast<double>(f.y[i]);
    return l;
  };
  const float h = 1e-2f;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<float> up = x, down = x;
    up[i] += h, down[i] -= h;
    const double step = static_cast<double>(up[i]) - static_cast<double>(down[i]);
    const double fd = (loss(up, gamma) - loss(down, gamma)) / step;
    EXPECT_NEAR(dx[i], fd, 2e-3) << "x[" << i << "]";
  }
  for (size_t c = 0; c < 2; ++c) {
    std::vector<float> up = gamma, down = gamma;
    up[c] += h, down[c] -= h;
    const double step = static_cast<double>(up[c]) - static_cast<double>(down[c]);
    const double fd = (loss(x, up) - loss(x, down)) / step;
    EXPECT_NEAR(dgamma[c], fd, 2e-3) << "gamma[" << c << "]";
  }
}

}  // namespace
}  // namespace s2::numerics

namespace s2::numerics {
namespace {

// The gate stage computes gate_act's backward with the streamed value as dy: relu's mask on
// the value itself; the others on the value rounded to the output's type first (in f32 the
// value itself), so a fused 16-bit backward gives the bits of the separate instruction that
// reads the stored gradient. apply_epilogue and the per-element epilogue agree.
TEST(Epilogue, TheGateComputesTheActivationBackwardOnTheValueAsStored) {
  const float values[] = {0.3337f, -1.2345678f, 2.71828f, -0.0009765f, 5.5f};
  const float gates[] = {0.25f, -2.5f, 1.0f, 3.1f, -0.7f};
  for (isa::DType type : {isa::DType::F32, isa::DType::BF16, isa::DType::F16})
    for (const isa::EnumValue& v : isa::enum_values(isa::EnumSet::GateAct)) {
      const isa::Activation act = gate_activation(static_cast<isa::GateAct>(v.value));
      SCOPED_TRACE(std::string(v.name) + " " + std::string(isa::dtype_name(type)));
      std::vector<float> y(std::begin(values), std::end(values));
      apply_epilogue(y.data(), y.size(), nullptr, isa::Activation::None, gates, act, type);
      EpilogueStages s;
      s.gate = true;
      s.gate_act = act;
      for (size_t i = 0; i < y.size(); ++i) {
        const float dy = act == isa::Activation::Relu ? values[i] : round_to(type, values[i]);
        const float want = act_bwd(act, dy, gates[i]);
        EXPECT_EQ(f32_bits(y[i]), f32_bits(want)) << i;
        EXPECT_EQ(f32_bits(epilogue(s, values[i], 0.0f, 0.0f, gates[i], type)), f32_bits(want))
            << i;
      }
    }
}

}  // namespace
}  // namespace s2::numerics
