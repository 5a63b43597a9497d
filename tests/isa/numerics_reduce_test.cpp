// The PPU's reduce (isa/numerics/reduce.h): its summation order, restated here from the header's
// words, and what that order is for (a long sum of squares stays accurate).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "isa/numerics/reduce.h"

namespace s2::numerics {
namespace {

// The header's rule, written out plainly: the whole group's terms by a pairwise tree, level by
// level (neighbours in pairs, an odd one out going up unchanged). (No subnormals arise here.)
float tree_sum(std::vector<float> level) {
  if (level.empty()) return 0.0f;
  while (level.size() > 1) {
    std::vector<float> up;
    for (std::size_t i = 0; i < level.size(); i += 2)
      up.push_back(i + 1 < level.size() ? level[i] + level[i + 1] : level[i]);
    level = up;
  }
  return level[0];
}

float uniform(std::mt19937& rng) {
  return static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f);  // [0, 1), exact
}

TEST(ReduceNumerics, SumsByAPairwiseTree) {
  // 2^24 then 32 ones: one accumulator in order drops every one (each 2^24 + 1 ties to even).
  // The tree loses only the one paired with 2^24 on the first level (2^24 + 30 from the first
  // 32 terms), and the last one, added at the top, ties to even upward: 2^24 + 32, exact.
  std::vector<float> x(33, 1.0f);
  x[0] = 16777216.0f;
  float y = 0.0f;
  reduce(isa::ReduceOp::Sum, x.data(), {33}, 1u, &y);
  EXPECT_EQ(y, 16777248.0f);
  float sequential = 0.0f;
  for (float v : x)
    sequential += v;
  EXPECT_EQ(sequential, 16777216.0f);  // what the old order gave
  // Every length up to a few levels' worth, against the level-by-level restatement.
  std::mt19937 rng(3);
  for (uint64_t n = 0; n <= 300; ++n) {
    std::vector<float> v(n);
    for (float& e : v)
      e = uniform(rng) - 0.5f;
    reduce(isa::ReduceOp::Sum, v.data(), {n}, 1u, &y);
    EXPECT_EQ(y, tree_sum(v)) << n << " terms";
  }
}

TEST(ReduceNumerics, EveryAxisSetAgreesWithTheRestatedRule) {
  const std::vector<uint64_t> shape = {3, 5, 7, 9};
  std::mt19937 rng(7);
  std::vector<float> x(3 * 5 * 7 * 9);
  for (float& v : x)
    v = (uniform(rng) - 0.5f) * std::exp2(static_cast<float>(rng() % 24) - 12.0f);
  for (uint32_t axes = 0; axes < 16; ++axes) {
    // Each output's group, gathered by walking x in row-major order.
    std::vector<std::vector<float>> groups(reduce_output_size(shape, axes));
    std::vector<std::vector<float>> squares(groups.size());
    std::size_t i = 0;
    for (uint64_t a = 0; a < 3; ++a)
      for (uint64_t b = 0; b < 5; ++b)
        for (uint64_t c = 0; c < 7; ++c)
          for (uint64_t d = 0; d < 9; ++d, ++i) {
            const uint64_t index[4] = {a, b, c, d};
            std::size_t out = 0;
            for (std::size_t k = 0; k < 4; ++k)
              if (!((axes >> k) & 1u)) out = out * shape[k] + index[k];
            groups[out].push_back(x[i]);
            squares[out].push_back(x[i] * x[i]);
          }
    std::vector<float> sum(groups.size()), sumsq(groups.size()), mean(groups.size()),
        max(groups.size());
    reduce(isa::ReduceOp::Sum, x.data(), shape, axes, sum.data());
    reduce(isa::ReduceOp::SumSq, x.data(), shape, axes, sumsq.data());
    reduce(isa::ReduceOp::Mean, x.data(), shape, axes, mean.data());
    reduce(isa::ReduceOp::Max, x.data(), shape, axes, max.data());
    for (std::size_t o = 0; o < groups.size(); ++o) {
      EXPECT_EQ(sum[o], tree_sum(groups[o])) << "axes " << axes << " output " << o;
      EXPECT_EQ(sumsq[o], tree_sum(squares[o])) << "axes " << axes << " output " << o;
      EXPECT_EQ(mean[o], tree_sum(groups[o]) / static_cast<float>(groups[o].size()))
          << "axes " << axes << " output " << o;
      float m = -std::numeric_limits<float>::infinity();
      for (float v : groups[o])
        m = v > m ? v : m;
      EXPECT_EQ(max[o], m) << "axes " << axes << " output " << o;
    }
  }
}

TEST(ReduceNumerics, ALongSumOfSquaresStaysAccurate) {
  // A weight gradient's worth of values (resnet18's largest, 512 x 512 x 3 x 3), most of them
  // small against a few large ones, as gradients are: one accumulator in order ends up adding
  // terms of a few units in its last place and loses a share of each.
  const std::size_t n = 2359296;
  std::mt19937 rng(1);
  std::vector<float> x(n);
  double exact = 0.0;
  for (float& v : x) {
    v = (uniform(rng) - 0.5f) * std::exp2(-8.0f * uniform(rng));
    exact += static_cast<double>(v) * static_cast<double>(v);
  }
  float y = 0.0f;
  reduce(isa::ReduceOp::SumSq, x.data(), {n}, 1u, &y);
  EXPECT_LT(std::abs(static_cast<double>(y) - exact) / exact, 1e-6);
  float sequential = 0.0f;  // the order reduce used before: far off, so the bound above bites
  for (float v : x)
    sequential += v * v;
  EXPECT_GT(std::abs(static_cast<double>(sequential) - exact) / exact, 1e-4);
}

TEST(ReduceNumerics, EmptyGroupsAndNaN) {
  float y[2] = {};
  reduce(isa::ReduceOp::Sum, nullptr, {0, 2}, 1u, y);  // two outputs over no elements
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  reduce(isa::ReduceOp::Max, nullptr, {0, 2}, 1u, y);
  EXPECT_EQ(y[0], -std::numeric_limits<float>::infinity());
  const float x[3] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 5.0f};
  reduce(isa::ReduceOp::Max, x, {3}, 1u, y);
  EXPECT_TRUE(std::isnan(y[0]));  // a NaN sticks
  reduce(isa::ReduceOp::Sum, x, {3}, 1u, y);
  EXPECT_TRUE(std::isnan(y[0]));
}

}  // namespace
}  // namespace s2::numerics
