// The verilated PE array (rtl_models/pe_array/pe_array.sv, plain C++ build): cycle counts
// against the timing model's weight-stationary pass formula (simulator/timing/pe_array_model.h)
// and bits against the s2::numerics reference (rtl_models/pe_array/pe_array_reference.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "rtl_models/pe_array/pe_array_reference.h"
#include "rtl_models/pe_array/pe_array_rtl.h"
#include "simulator/dram/load_target.h"
#include "simulator/timing/pe_array_model.h"

namespace s2::rtl {
namespace {

struct Size {
  uint32_t rows;
  uint32_t cols;
};

std::string size_name(const ::testing::TestParamInfo<Size>& info) {
  return std::to_string(info.param.rows) + "x" + std::to_string(info.param.cols);
}

// pe_array_model.h, weight stationary, every beats() term 1 (one array edge per cycle):
// weight load + fill through the whole array + stream + kAccumulateLatency.
uint64_t pass_formula(const Size& s, const PePass& p) {
  return uint64_t{p.k} + (s.rows - 1) + (s.cols - 1) + p.m + 2;
}

// Finite values with exponents spread over +-2^20 and both signs: every add rounds.
uint32_t random_value(std::mt19937_64& rng) {
  const uint32_t sign = static_cast<uint32_t>(rng() & 1u) << 31;
  const uint32_t exp = 127 - 20 + static_cast<uint32_t>(rng() % 41);
  return sign | (exp << 23) | static_cast<uint32_t>(rng() & 0x7FFFFFu);
}

// Special operands: zeros, subnormals, min normal, huge, tiny, Inf, NaNs with payloads.
constexpr uint32_t kSpecials[] = {
    0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800000, 0x7F7FFFFF,
    0xFF7FFFFF, 0x7F000000, 0x0C000000, 0x8C000001, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC12345,
    0x7F800001, 0x3F800000, 0xBF800000, 0x3F7FFFFF, 0x1F800000, 0x9F800000, 0x60000000, 0x20000000,
};

uint32_t special_value(std::mt19937_64& rng) {
  // Mostly specials, some ordinary values so that specials meet finite sums.
  if (rng() % 4 == 0) return random_value(rng);
  return kSpecials[rng() % (sizeof kSpecials / sizeof kSpecials[0])];
}

template <typename Gen>
std::vector<uint32_t> fill(size_t count, std::mt19937_64& rng, Gen gen) {
  std::vector<uint32_t> v(count);
  for (uint32_t& x : v)
    x = gen(rng);
  return v;
}

// Runs one pass on the RTL and on the reference with the same data; expects equal bits.
// x, w, c use strides wider than the pass so that out-of-pass elements are checked too.
uint64_t check_pass(RtlPeArray& array, const PePass& p, std::mt19937_64& rng,
                    uint32_t (*gen)(std::mt19937_64&)) {
  const size_t ldx = p.k + 3, ldw = p.n + 2, ldc = p.n + 5;
  const std::vector<uint32_t> x = fill(size_t{p.m} * ldx, rng, gen);
  const std::vector<uint32_t> w = fill(size_t{p.k} * ldw, rng, gen);
  std::vector<uint32_t> c = fill(size_t{p.m} * ldc, rng, gen);
  std::vector<uint32_t> expected = c;
  reference_pass(p, x.data(), ldx, w.data(), ldw, expected.data(), ldc);
  const uint64_t cycles = array.run_pass(p, x.data(), ldx, w.data(), ldw, c.data(), ldc);
  size_t mismatches = 0;
  for (size_t e = 0; e < c.size(); ++e)
    if (c[e] != expected[e] && ++mismatches <= 5)
      ADD_FAILURE() << "m=" << p.m << " n=" << p.n << " k=" << p.k << ": c[" << e / ldc << "]["
                    << e % ldc << "] = 0x" << std::hex << c[e] << ", expected 0x" << expected[e];
  EXPECT_EQ(mismatches, 0u);
  return cycles;
}

// Full, K_t = 1, N_t = 1, M_t = 1, the smallest, ragged, and the largest M.
std::vector<PePass> shapes(const Size& s) {
  return {{40, s.cols, s.rows},
          {17, s.cols, 1},
          {9, 1, s.rows},
          {1, s.cols, s.rows},
          {1, 1, 1},
          {23, s.cols - 1, s.rows - 3},
          {3, s.cols / 2 + 1, s.rows / 2 + 1},
          {1024, s.cols, s.rows}};
}

class RtlPeArraySize : public ::testing::TestWithParam<Size> {
 protected:
  RtlPeArraySize() : array_(make_rtl_pe_array(GetParam().rows, GetParam().cols)) {}
  std::unique_ptr<RtlPeArray> array_;
  std::mt19937_64 rng_{20261121};
};

TEST_P(RtlPeArraySize, ReportsItsShape) {
  EXPECT_EQ(array_->rows(), GetParam().rows);
  EXPECT_EQ(array_->cols(), GetParam().cols);
  EXPECT_EQ(array_->max_m(), 1024u);
}

TEST_P(RtlPeArraySize, CyclesAreThePassFormulaAndBitsTheReference) {
  for (const PePass& p : shapes(GetParam())) {
    SCOPED_TRACE("m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
                 " k=" + std::to_string(p.k));
    EXPECT_EQ(check_pass(*array_, p, rng_, random_value), pass_formula(GetParam(), p));
  }
}

// The timing model itself (configs/ for 32x32 and 16x16, the base config reshaped for the
// rest) must give the RTL's count: the co-simulation contract.
TEST_P(RtlPeArraySize, CyclesMatchTheTimingModel) {
  const Size s = GetParam();
  target::TargetDesc target = target::load_target(
      std::string(S2_SOURCE_DIR) + (s.rows == 16 && s.cols == 16 ? "/configs/s2train_small.yaml"
                                                                 : "/configs/s2train_base.yaml"));
  target.pe_array.rows = s.rows;
  target.pe_array.cols = s.cols;
  const auto model = sim::timing::make_pe_array_model(target);
  // The model's passes hold at most its accumulator rows per column (512 on the small config,
  // below the RTL's MAX_M; more than MAX_M on the reshaped 8x4): shapes are cut to both
  // limits, so the model's limit is among them.
  const auto limit_m =
      static_cast<uint32_t>(std::min<uint64_t>(model->max_pass().m, array_->max_m()));
  for (PePass p : shapes(s)) {
    p.m = std::min(p.m, limit_m);
    SCOPED_TRACE("m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
                 " k=" + std::to_string(p.k));
    EXPECT_EQ(check_pass(*array_, p, rng_, random_value), model->pass_cycles({p.m, p.n, p.k}));
  }
}

TEST_P(RtlPeArraySize, SpecialValuesMatchTheReference) {
  const Size s = GetParam();
  for (int round = 0; round < 4; ++round) {
    check_pass(*array_, {31, s.cols, s.rows}, rng_, special_value);
    check_pass(*array_, {5, s.cols - 1, s.rows - 1}, rng_, special_value);
  }
}

// Documented results: -0 sums, a zero K row, and the accumulator's read-add-write.
TEST_P(RtlPeArraySize, SignedZerosAndAccumulation) {
  const PePass p{2, 1, 2};
  const uint32_t x[] = {0x80000000, 0x80000000,   // -0, -0
                        0x3F800000, 0x40000000};  // 1, 2
  const uint32_t w[] = {0x3F800000,               // 1
                        0x40400000};              // 3
  uint32_t c[] = {0x80000000,                     // -0
                  0x3F800000};                    // 1
  array_->run_pass(p, x, 2, w, 1, c, 1);
  // t = (+0 + -0) + -0 = +0; -0 + +0 = +0.  t = 1*1 + 2*3 = 7; 1 + 7 = 8.
  EXPECT_EQ(c[0], 0x00000000u);
  EXPECT_EQ(c[1], 0x41000000u);
}

// Stale Inf weights in rows >= K_t and columns >= N_t, and Inf inputs in those lanes (the
// harness drives Inf there), must not reach the results: the PEs are bypassed, not fed zeros.
TEST_P(RtlPeArraySize, BypassedRowsAndColumnsDoNotChangeResults) {
  const Size s = GetParam();
  std::vector<uint32_t> x_inf(size_t{4} * s.rows, 0x7F800000);
  std::vector<uint32_t> w_inf(size_t{s.rows} * s.cols, 0xFF800000);
  std::vector<uint32_t> c_full(size_t{4} * s.cols, 0);
  array_->run_pass({4, s.cols, s.rows}, x_inf.data(), s.rows, w_inf.data(), s.cols, c_full.data(),
                   s.cols);
  for (uint32_t v : c_full)
    EXPECT_EQ(v, 0xFF800000u);  // -Inf everywhere: all PEs loaded
  for (const PePass& p : {PePass{6, s.cols / 2, s.rows / 2}, PePass{3, 1, 1}}) {
    std::vector<uint32_t> x(size_t{p.m} * p.k, 0x3F800000);     // 1
    std::vector<uint32_t> w(size_t{p.k} * p.n, 0x40000000);     // 2
    std::vector<uint32_t> c(size_t{p.m} * s.cols, 0x3F800000);  // 1, wider than n
    array_->run_pass(p, x.data(), p.k, w.data(), p.n, c.data(), s.cols);
    const uint32_t expected = f32_bits(1.0f + 2.0f * static_cast<float>(p.k));
    for (uint32_t i = 0; i < p.m; ++i)
      for (uint32_t j = 0; j < s.cols; ++j)
        EXPECT_EQ(c[size_t{i} * s.cols + j], j < p.n ? expected : 0x3F800000u)
            << "i=" << i << " j=" << j;
  }
}

TEST_P(RtlPeArraySize, GemmIsKTiledAccumulation) {
  const Size s = GetParam();
  const uint32_t m = 45, n = 2 * s.cols + 3, kd = 2 * s.rows + 5;
  const std::vector<uint32_t> a = fill(size_t{m} * kd, rng_, random_value);
  const std::vector<uint32_t> b = fill(size_t{kd} * n, rng_, random_value);
  std::vector<uint32_t> c = fill(size_t{m} * n, rng_, random_value);
  std::vector<uint32_t> expected = c;
  reference_gemm(m, n, kd, a.data(), kd, b.data(), n, expected.data(), n, s.rows);
  const std::vector<PassRecord> passes =
      run_gemm(*array_, m, n, kd, a.data(), kd, b.data(), n, c.data(), n);
  EXPECT_EQ(c, expected);
  ASSERT_EQ(passes.size(), 9u);  // 3 N blocks x 3 K blocks x 1 M block
  for (size_t q = 0; q < passes.size(); ++q) {
    const PePass& p = passes[q].pass;
    EXPECT_EQ(p.m, m);
    EXPECT_EQ(p.n, q / 3 < 2 ? s.cols : 3u);
    EXPECT_EQ(p.k, q % 3 < 2 ? s.rows : 5u);  // ascending K within each N block
    EXPECT_EQ(passes[q].cycles, pass_formula(s, p));
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltSizes, RtlPeArraySize,
                         ::testing::Values(Size{32, 32}, Size{16, 16}, Size{8, 4}), size_name);

TEST(RtlPeArray, GemmSplitsMAtMaxM) {
  const auto array = make_rtl_pe_array(8, 4);
  std::mt19937_64 rng(7);
  const uint32_t m = 1030, n = 4, kd = 8;
  const std::vector<uint32_t> a = fill(size_t{m} * kd, rng, random_value);
  const std::vector<uint32_t> b = fill(size_t{kd} * n, rng, random_value);
  std::vector<uint32_t> c(size_t{m} * n, 0);
  std::vector<uint32_t> expected = c;
  reference_gemm(m, n, kd, a.data(), kd, b.data(), n, expected.data(), n, 8);
  const std::vector<PassRecord> passes =
      run_gemm(*array, m, n, kd, a.data(), kd, b.data(), n, c.data(), n);
  EXPECT_EQ(c, expected);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(passes[0].pass.m, 1024u);
  EXPECT_EQ(passes[1].pass.m, 6u);
}

TEST(RtlPeArray, UnbuiltSizeIsAUserErrorListingTheBuiltOnes) {
  try {
    make_rtl_pe_array(64, 64);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("64x64"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("32x32, 16x16, 8x4"), std::string::npos) << e.what();
  }
}

TEST(RtlPeArray, PassOutsideTheLimitsIsAUserError) {
  const auto array = make_rtl_pe_array(8, 4);
  std::vector<uint32_t> buf(size_t{2048} * 8, 0);
  const uint32_t* in = buf.data();
  uint32_t* out = buf.data();
  EXPECT_THROW(array->run_pass({0, 4, 8}, in, 8, in, 4, out, 4), UserError);
  EXPECT_THROW(array->run_pass({1025, 4, 8}, in, 8, in, 4, out, 4), UserError);
  EXPECT_THROW(array->run_pass({1, 5, 8}, in, 8, in, 5, out, 5), UserError);
  EXPECT_THROW(array->run_pass({1, 4, 9}, in, 9, in, 4, out, 4), UserError);
  EXPECT_THROW(array->run_pass({1, 4, 0}, in, 8, in, 4, out, 4), UserError);
  EXPECT_THROW(array->run_pass({1, 4, 8}, in, 7, in, 4, out, 4), UserError);
  // The array still works after rejected passes.
  EXPECT_EQ(array->run_pass({1, 4, 8}, in, 8, in, 4, out, 4), 8u + 7 + 3 + 1 + 2);
}

}  // namespace
}  // namespace s2::rtl
