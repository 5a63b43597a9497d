// KTiledGemm (isa/numerics/pe_gemm.h) against a plain restatement of its contract, bit for bit,
// on many random shapes, strides, K-tiles and operand mixes (ragged blocks, several panels,
// subnormals, Inf, NaN, signed zeros, values around the bound under which the fast path must
// not be taken), with both compiled kernels.
#include "isa/numerics/pe_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "isa/common/float_bits.h"
#include "isa/numerics/fp32.h"

namespace s2::numerics {
namespace {

// The contract as pe_gemm.h states it, one element at a time.
void contract_gemm(size_t k_tile, size_t m, size_t n, size_t kd, const float* a, size_t lda,
                   const float* b, size_t ldb, float* c, size_t ldc) {
  const size_t tile = k_tile == 0 ? kd : k_tile;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t e0 = 0; e0 < kd; e0 += tile) {
        float t = 0.0f;
        for (size_t e = e0; e < std::min(kd, e0 + tile); ++e)
          t = mac(t, a[i * lda + e], b[e * ldb + j]);
        c[i * ldc + j] = add(c[i * ldc + j], t);
      }
}

// How operands are drawn; each stresses a different part of the implementation.
enum class Mix {
  kNormal,     // uniform in [-1, 1]: the fast path
  kSmallInts,  // small integers: exact cancellations, so signed zeros in sums
  kSpecials,   // mostly normal with +-0, +-Inf, NaN, subnormals, FLT_MIN, 1 - ulp sprinkled in
  kAllBits,    // any bit pattern
  kNearBound,  // products just above 2^-102 with random signs: fast path, deep cancellation
  kUnderflow,  // products around 2^-126: subnormal products flush, the exact path
  kCancel,     // normal products in [2^-126, 2^-124) whose sums cancel to subnormals
  kZeros,      // all zero but a few: the all-zero key
};
constexpr Mix kMixes[] = {Mix::kNormal,    Mix::kSmallInts, Mix::kSpecials, Mix::kAllBits,
                          Mix::kNearBound, Mix::kUnderflow, Mix::kCancel,   Mix::kZeros};
constexpr int kNumMixes = static_cast<int>(sizeof kMixes / sizeof kMixes[0]);

class Operands {
 public:
  explicit Operands(uint32_t seed) : rng_(seed) {}

  float draw(Mix mix) {
    switch (mix) {
      case Mix::kNormal:
        return uniform(-1.0f, 1.0f);
      case Mix::kSmallInts:
        return static_cast<float>(int_in(-4, 4));
      case Mix::kSpecials: {
        static const uint32_t kSpecial[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                            0x7FC00000u, 0xFFC01234u, 0x00000001u, 0x807FFFFFu,
                                            0x00800000u, 0x80800000u, 0x3F7FFFFFu, 0x7F7FFFFFu};
        if (int_in(0, 7) == 0) return f32_from_bits(kSpecial[int_in(0, 11)]);
        return uniform(-2.0f, 2.0f);
      }
      case Mix::kAllBits:
        return f32_from_bits(static_cast<uint32_t>(rng_()));
      case Mix::kNearBound:
        return signed_pow2_range(-51, -48);
      case Mix::kUnderflow:
        return signed_pow2_range(-66, -60);
      case Mix::kCancel:
        return signed_pow2_range(-63, -62);
      case Mix::kZeros:
        return int_in(0, 15) == 0 ? uniform(-1.0f, 1.0f) : 0.0f;
    }
    return 0.0f;
  }
  int int_in(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
  // +-m * 2^e, m in [1, 2) random, e in [lo, hi).
  float signed_pow2_range(int lo, int hi) {
    const float v = std::ldexp(uniform(1.0f, 2.0f), int_in(lo, hi - 1));
    return int_in(0, 1) ? v : -v;
  }
  std::mt19937 rng_;
};

// Same bits, or both NaN (fp32.h leaves NaN payloads to the host).
bool same(float x, float y) {
  return f32_bits(x) == f32_bits(y) || (std::isnan(x) && std::isnan(y));
}

struct Case {
  size_t m, n, kd, k_tile, lda, ldb, ldc;
  Mix mix_a, mix_b, mix_c;
};

std::string describe(const Case& c) {
  return "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " kd=" + std::to_string(c.kd) +
         " k_tile=" + std::to_string(c.k_tile) + " lda=" + std::to_string(c.lda) +
         " ldb=" + std::to_string(c.ldb) + " ldc=" + std::to_string(c.ldc) +
         " mixes=" + std::to_string(int(c.mix_a)) + "," + std::to_string(int(c.mix_b)) + "," +
         std::to_string(int(c.mix_c));
}

// Runs one case with both kernels; the gaps between rows (strides > width) hold sentinels that
// must come back untouched in c and must not leak into the sums from a and b.
void check_case(const Case& k, Operands& rng) {
  constexpr float kGap = 12345.0f;
  std::vector<float> a(k.m * k.lda, kGap), b(k.kd * k.ldb, kGap), c(k.m * k.ldc, kGap);
  for (size_t i = 0; i < k.m; ++i)
    for (size_t e = 0; e < k.kd; ++e)
      a[i * k.lda + e] = rng.draw(k.mix_a);
  for (size_t e = 0; e < k.kd; ++e)
    for (size_t j = 0; j < k.n; ++j)
      b[e * k.ldb + j] = rng.draw(k.mix_b);
  for (size_t i = 0; i < k.m; ++i)
    for (size_t j = 0; j < k.n; ++j)
      c[i * k.ldc + j] = rng.draw(k.mix_c);

  std::vector<float> want = c;
  contract_gemm(k.k_tile, k.m, k.n, k.kd, a.data(), k.lda, b.data(), k.ldb, want.data(), k.ldc);
  for (const auto kernel : {KTiledGemm::Kernel::kAuto, KTiledGemm::Kernel::kBaseline}) {
    std::vector<float> got = c;
    KTiledGemm(k.k_tile, kernel)
        .accumulate(k.m, k.n, k.kd, a.data(), k.lda, b.data(), k.ldb, got.data(), k.ldc);
    for (size_t x = 0; x < got.size(); ++x)
      if (!same(got[x], want[x])) {
        ADD_FAILURE() << describe(k) << " kernel=" << int(kernel) << ": c[" << x / k.ldc << "]["
                      << x % k.ldc << "] is 0x" << std::hex << f32_bits(got[x])
                      << ", the contract gives 0x" << f32_bits(want[x]);
        return;
      }
  }
}

TEST(KTiledGemm, MatchesTheContractBitForBitOnRandomShapes) {
  Operands rng(20261121);
  constexpr size_t kTiles[] = {0, 1, 7, 16, 32};
  for (int iter = 0; iter < 2500 && !HasFailure(); ++iter) {
    Case k{};
    k.m = static_cast<size_t>(rng.int_in(1, 70));
    k.n = static_cast<size_t>(rng.int_in(1, 70));
    k.kd = static_cast<size_t>(rng.int_in(1, 70));
    k.k_tile = kTiles[rng.int_in(0, 4)];
    k.lda = k.kd + static_cast<size_t>(rng.int_in(0, 1) * rng.int_in(1, 5));
    k.ldb = k.n + static_cast<size_t>(rng.int_in(0, 1) * rng.int_in(1, 5));
    k.ldc = k.n + static_cast<size_t>(rng.int_in(0, 1) * rng.int_in(1, 5));
    // Mostly one mix for a and b, so that whole calls take the fast or the exact path.
    k.mix_a = kMixes[rng.int_in(0, kNumMixes - 1)];
    k.mix_b = rng.int_in(0, 3) == 0 ? kMixes[rng.int_in(0, kNumMixes - 1)] : k.mix_a;
    // c: ordinary, or mostly zero (so that sums far below a's and b's magnitudes still show
    // in it), or like a.
    const Mix c_mixes[] = {Mix::kNormal, Mix::kZeros, k.mix_a};
    k.mix_c = c_mixes[rng.int_in(0, 2)];
    check_case(k, rng);
  }
}

TEST(KTiledGemm, MatchesTheContractAcrossSeveralPanels) {
  // b is packed in panels of at most 128 Ki floats: with K = 4500 both kernels cut K into
  // panels of whole K-tiles (unless the K-tile is the whole K) and n = 100 spans several
  // panels, the last one ragged; the K-tile 7 does not divide the panel depth.
  Operands rng(7);
  for (const Mix mix : kMixes)
    for (const size_t k_tile : {size_t{0}, size_t{32}, size_t{7}})
      check_case(Case{9, 100, 4500, k_tile, 4503, 101, 100, mix, mix, Mix::kZeros}, rng);
}

TEST(KTiledGemm, FlushesASubnormalProductAmongOrdinaryValues) {
  // Element (0, 5) sums 2^-70 * 2^-70 = 2^-140 (subnormal: flushed to 0), then
  // 2^-70 * 2^-56 = 2^-126, so it is exactly 2^-126; had the first product survived it would
  // be 2^-126 * (1 + 2^-14). The other values are ordinary, so only the flush check on the
  // operands keeps this call off the no-flush path.
  const size_t m = 4, n = 16, kd = 8;
  std::vector<float> a(m * kd, 0.5f), b(kd * n, 0.25f), c(m * n, 0.0f);
  a[0 * kd + 3] = std::ldexp(1.0f, -70);
  a[0 * kd + 4] = std::ldexp(1.0f, -70);
  for (size_t e = 0; e < kd; ++e)
    b[e * n + 5] = 0.0f;
  b[3 * n + 5] = std::ldexp(1.0f, -70);
  b[4 * n + 5] = std::ldexp(1.0f, -56);
  std::vector<float> want = c;
  contract_gemm(32, m, n, kd, a.data(), kd, b.data(), n, want.data(), n);
  for (const auto kernel : {KTiledGemm::Kernel::kAuto, KTiledGemm::Kernel::kBaseline}) {
    std::vector<float> got = c;
    KTiledGemm(32, kernel).accumulate(m, n, kd, a.data(), kd, b.data(), n, got.data(), n);
    EXPECT_EQ(got[5], std::ldexp(1.0f, -126));
    for (size_t x = 0; x < got.size(); ++x)
      EXPECT_EQ(f32_bits(got[x]), f32_bits(want[x])) << x;
  }
}

TEST(KTiledGemm, EmptyShapesLeaveCUntouched) {
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(4, 3.0f);
  KTiledGemm(0).accumulate(2, 2, 0, a.data(), 2, b.data(), 2, c.data(), 2);
  KTiledGemm(16).accumulate(0, 2, 2, a.data(), 2, b.data(), 2, c.data(), 2);
  KTiledGemm(16).accumulate(2, 0, 2, a.data(), 2, b.data(), 2, c.data(), 2);
  EXPECT_EQ(c, std::vector<float>(4, 3.0f));
}

}  // namespace
}  // namespace s2::numerics
