// The PPU's random numbers (isa/numerics/philox.h): Philox4x32-10 against the known-answer
// vectors of its authors' Random123 distribution (kat_vectors), the element-to-word layout of
// a stream, and dropout's mask: exact scale, reproducible, a new mask per step, and a kept
// fraction within a few standard deviations of 1 - ratio.
#include "isa/numerics/philox.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "isa/numerics/fp32.h"

namespace s2::numerics {
namespace {

using Block = std::array<uint32_t, 4>;

TEST(Philox, KnownAnswerVectors) {
  EXPECT_EQ(philox4x32({0, 0, 0, 0}, {0, 0}),
            (Block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(
      philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
      (Block{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(
      philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
      (Block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// Element i is word i % 4 of block i / 4, the block index in the counter's low two words and
// the key {seed, step}; its uniform keeps the top 24 bits.
TEST(Philox, ElementsWalkTheBlocksWordByWord) {
  const PhiloxKey key{0x1234u, 7u};
  for (uint64_t i : {0ull, 3ull, 4ull, 4ull * 0x100000000ull + 2}) {
    const uint64_t block = i / 4;
    const Block out = philox4x32(
        {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0}, {0x1234u, 7u});
    EXPECT_EQ(philox_uniform(key, i), static_cast<float>(out[i % 4] >> 8) / 16777216.0f) << i;
  }
  EXPECT_EQ(philox_uniform({0, 0}, 0), static_cast<float>(0x6627e8d5u >> 8) / 16777216.0f);
}

TEST(DropoutMask, ValuesAreZeroOrTheExactScale) {
  std::vector<float> mask(1001);
  dropout_mask(0.2f, {42, 0}, mask.data(), mask.size());
  const float scale = div(1.0f, 0.8f);  // PyTorch: bernoulli_(1 - p).div_(1 - p)
  for (size_t i = 0; i < mask.size(); ++i) {
    ASSERT_TRUE(mask[i] == 0.0f || mask[i] == scale) << i << ": " << mask[i];
    EXPECT_EQ(mask[i] != 0.0f, philox_uniform({42, 0}, i) < 0.8f) << i;
  }
}

TEST(DropoutMask, ReproducibleAndNewForEachStepAndSeed) {
  auto draw = [](uint32_t seed, uint32_t step) {
    std::vector<float> m(256);
    dropout_mask(0.5f, {seed, step}, m.data(), m.size());
    return m;
  };
  EXPECT_EQ(draw(1, 0), draw(1, 0));
  EXPECT_NE(draw(1, 0), draw(1, 1));
  EXPECT_NE(draw(1, 0), draw(2, 0));
  // A prefix of a longer mask is the shorter mask: element i depends on i alone.
  std::vector<float> shorter(5), longer(9);
  dropout_mask(0.5f, {3, 4}, shorter.data(), shorter.size());
  dropout_mask(0.5f, {3, 4}, longer.data(), longer.size());
  EXPECT_EQ(shorter, std::vector<float>(longer.begin(), longer.begin() + 5));
}

TEST(DropoutMask, KeptFractionIsOneMinusRatio) {
  const size_t n = 1 << 18;
  std::vector<float> mask(n);
  for (float ratio : {0.1f, 0.2f, 0.5f, 0.9f}) {
    dropout_mask(ratio, {99, 3}, mask.data(), n);
    size_t kept = 0;
    for (float v : mask)
      kept += v != 0.0f;
    const double p = 1.0 - static_cast<double>(ratio);
    const double sigma = std::sqrt(n * p * (1.0 - p));
    EXPECT_NEAR(static_cast<double>(kept), n * p, 5.0 * sigma) << "ratio " << ratio;
  }
  dropout_mask(0.0f, {99, 3}, mask.data(), n);
  for (float v : mask)
    ASSERT_EQ(v, 1.0f);
}

}  // namespace
}  // namespace s2::numerics
