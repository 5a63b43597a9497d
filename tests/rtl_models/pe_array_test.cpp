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
#include "rtl_models/pe/pe_mac_check.h"
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
  reference_pass(p, x.data(), ldx, w.data(), ldw, expected.data(), ldc, array.rows());
  const uint64_t cycles = array.run_pass(p, x.data(), ldx, w.data(), ldw, c.data(), ldc);
  size_t mismatches = 0;
  for (size_t e = 0; e < c.size(); ++e)
    if (c[e] != expected[e] && ++mismatches <= 5)
      ADD_FAILURE() << isa::dtype_name(p.mode) << " m=" << p.m << " n=" << p.n << " k=" << p.k
                    << ": c[" << e / ldc << "][" << e % ldc << "] = 0x" << std::hex << c[e]
                    << ", expected 0x" << expected[e];
  EXPECT_EQ(mismatches, 0u);
  return cycles;
}

// A pass of ones (`one` in the pass's type) times twos into accumulators of f32 ones, as wide as
// the array: the first n columns become 1 + 2k exactly, the others keep their ones.
void expect_ones_times_twos(RtlPeArray& array, const PePass& p, uint32_t one, uint32_t two) {
  const uint32_t cols = array.cols();
  std::vector<uint32_t> x(size_t{p.m} * p.k, one);
  std::vector<uint32_t> w(size_t{p.k} * p.n, two);
  std::vector<uint32_t> c(size_t{p.m} * cols, 0x3F800000);  // 1, wider than n
  array.run_pass(p, x.data(), p.k, w.data(), p.n, c.data(), cols);
  const uint32_t expected = f32_bits(1.0f + 2.0f * static_cast<float>(p.k));
  for (uint32_t i = 0; i < p.m; ++i)
    for (uint32_t j = 0; j < cols; ++j)
      EXPECT_EQ(c[size_t{i} * cols + j], j < p.n ? expected : 0x3F800000u)
          << isa::dtype_name(p.mode) << " k=" << p.k << " i=" << i << " j=" << j;
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
  for (const PePass& p : {PePass{6, s.cols / 2, s.rows / 2}, PePass{3, 1, 1}})
    expect_ones_times_twos(*array_, p, 0x3F800000, 0x40000000);
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

// The 16-bit multiply modes: MACS chains per column (K_t up to rows x MACS), one input row per
// ceil(2 K_t / input bytes per cycle) cycles, the accumulator adding the chains in order.
struct ModeCase {
  Size size;
  isa::DType mode;
};

std::string mode_case_name(const ::testing::TestParamInfo<ModeCase>& info) {
  return std::to_string(info.param.size.rows) + "x" + std::to_string(info.param.size.cols) + "_" +
         std::string(isa::dtype_name(info.param.mode));
}

// Finite 16-bit values (bf16: exponents within 2^+-20, f16: within 2^+-8, both signs) with
// arbitrary upper halves, which the RTL must ignore.
uint32_t random_bf16(std::mt19937_64& rng) {
  const uint32_t sign = static_cast<uint32_t>(rng() & 1u) << 15;
  const uint32_t exp = 127 - 20 + static_cast<uint32_t>(rng() % 41);
  return (static_cast<uint32_t>(rng()) & 0xFFFF0000u) | sign | (exp << 7) |
         static_cast<uint32_t>(rng() & 0x7Fu);
}
uint32_t random_f16(std::mt19937_64& rng) {
  const uint32_t sign = static_cast<uint32_t>(rng() & 1u) << 15;
  const uint32_t exp = 15 - 8 + static_cast<uint32_t>(rng() % 17);
  return (static_cast<uint32_t>(rng()) & 0xFFFF0000u) | sign | (exp << 10) |
         static_cast<uint32_t>(rng() & 0x3FFu);
}
// The PE regression's special patterns of each format (rtl_models/pe/pe_mac_check.h: zeros,
// subnormals, range ends, Inf, NaNs with payloads), mixed with ordinary values.
template <isa::DType Mode>
uint32_t special_16(std::mt19937_64& rng) {
  static const std::vector<uint32_t> values = special_values(Mode);
  if (rng() % 4 == 0) return Mode == isa::DType::BF16 ? random_bf16(rng) : random_f16(rng);
  return values[rng() % values.size()];
}

class RtlPeArrayMode : public ::testing::TestWithParam<ModeCase> {
 protected:
  RtlPeArrayMode() : array_(make_rtl_pe_array(GetParam().size.rows, GetParam().size.cols)) {
    // The configuration the build stands in for: its datatypes and input buffer.
    const Size s = GetParam().size;
    target_ = target::load_target(std::string(S2_SOURCE_DIR) +
                                  (s.rows == 16 && s.cols == 16 ? "/configs/s2train_small.yaml"
                                                                : "/configs/s2train_base.yaml"));
    target_.pe_array.rows = s.rows;
    target_.pe_array.cols = s.cols;
    target_.pe_array.datatypes[GetParam().mode] = array_->macs();
    array_->set_input_bytes_per_cycle(uint64_t{target_.sram.input.banks} *
                                      target_.sram.input.bank_width_bytes);
  }
  uint32_t (*values() const)(std::mt19937_64&) {
    return GetParam().mode == isa::DType::BF16 ? random_bf16 : random_f16;
  }
  uint32_t (*specials() const)(std::mt19937_64&) {
    return GetParam().mode == isa::DType::BF16 ? special_16<isa::DType::BF16>
                                               : special_16<isa::DType::F16>;
  }
  // Full, one step, one column, one row, a second chain of one step, ragged, the largest M.
  std::vector<PePass> shapes() const {
    const Size s = GetParam().size;
    const isa::DType mode = GetParam().mode;
    const uint32_t k_max = s.rows * array_->macs();
    return {{40, s.cols, k_max, mode},
            {17, s.cols, 1, mode},
            {9, 1, k_max, mode},
            {1, s.cols, k_max, mode},
            {5, s.cols, s.rows + 1, mode},
            {23, s.cols - 1, k_max - 3, mode},
            {3, s.cols / 2 + 1, s.rows / 2 + 1, mode},
            {1024, s.cols, k_max, mode}};
  }
  std::unique_ptr<RtlPeArray> array_;
  target::TargetDesc target_;
  std::mt19937_64 rng_{20261129};
};

TEST_P(RtlPeArrayMode, CyclesMatchTheTimingModelAndBitsTheReference) {
  const auto model = sim::timing::make_pe_array_model(target_, GetParam().mode);
  ASSERT_EQ(model->max_pass().k, array_->max_k(GetParam().mode));
  const auto limit_m =
      static_cast<uint32_t>(std::min<uint64_t>(model->max_pass().m, array_->max_m()));
  bool several_beats = false;
  for (PePass p : shapes()) {
    p.m = std::min(p.m, limit_m);
    SCOPED_TRACE("m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
                 " k=" + std::to_string(p.k));
    EXPECT_EQ(check_pass(*array_, p, rng_, values()), model->pass_cycles({p.m, p.n, p.k}));
    several_beats = several_beats || 2ull * p.k > array_->input_bytes_per_cycle();
  }
  // The base config's 32x32 array takes two cycles per row of 128 bf16 inputs (256 bytes from
  // a 128-byte port): the beats are exercised there.
  if (GetParam().size.rows == 32) {
    EXPECT_TRUE(several_beats);
  }
}

TEST_P(RtlPeArrayMode, SpecialValuesMatchTheReference) {
  const Size s = GetParam().size;
  const uint32_t k_max = s.rows * array_->macs();
  for (int round = 0; round < 4; ++round) {
    check_pass(*array_, {31, s.cols, k_max, GetParam().mode}, rng_, specials());
    check_pass(*array_, {5, s.cols - 1, k_max - 1, GetParam().mode}, rng_, specials());
  }
}

// The chains are the K-tiles of isa/numerics/pe_gemm.h: a GEMM in a 16-bit mode equals the
// K-tiled reference with k_tile = rows, in passes of rows x MACS steps.
TEST_P(RtlPeArrayMode, GemmIsKTiledAccumulation) {
  const Size s = GetParam().size;
  const isa::DType mode = GetParam().mode;
  const uint32_t k_max = s.rows * array_->macs();
  const uint32_t m = 45, n = s.cols + 3, kd = 2 * k_max + s.rows + 5;
  const std::vector<uint32_t> a = fill(size_t{m} * kd, rng_, values());
  const std::vector<uint32_t> b = fill(size_t{kd} * n, rng_, values());
  std::vector<uint32_t> c = fill(size_t{m} * n, rng_, random_value);
  std::vector<uint32_t> expected = c;
  reference_gemm(m, n, kd, a.data(), kd, b.data(), n, expected.data(), n, s.rows, mode);
  const std::vector<PassRecord> passes =
      run_gemm(*array_, m, n, kd, a.data(), kd, b.data(), n, c.data(), n, 0, mode);
  EXPECT_EQ(c, expected);
  ASSERT_EQ(passes.size(), 6u);  // 2 N blocks x 3 K blocks
  for (size_t q = 0; q < passes.size(); ++q)
    EXPECT_EQ(passes[q].pass.k, q % 3 < 2 ? k_max : s.rows + 5);
}

// Stale Inf weights in unused slots and Inf inputs in the lanes beyond K_t (the harness drives
// the format's Inf there) must not reach the results.
TEST_P(RtlPeArrayMode, BypassedSlotsDoNotChangeResults) {
  const Size s = GetParam().size;
  const isa::DType mode = GetParam().mode;
  const uint32_t k_max = s.rows * array_->macs();
  const uint32_t inf = mode == isa::DType::BF16 ? 0xFF80u : 0xFC00u;  // -Inf
  const uint32_t one = mode == isa::DType::BF16 ? 0x3F80u : 0x3C00u;
  const uint32_t two = 0x4000u;  // 2 in bf16 and in f16 alike
  std::vector<uint32_t> x_one(size_t{4} * k_max, one);
  std::vector<uint32_t> w_inf(size_t{k_max} * s.cols, inf);
  std::vector<uint32_t> c_full(size_t{4} * s.cols, 0);
  array_->run_pass({4, s.cols, k_max, mode}, x_one.data(), k_max, w_inf.data(), s.cols,
                   c_full.data(), s.cols);
  for (uint32_t v : c_full)
    EXPECT_EQ(v, 0xFF800000u);  // -Inf everywhere: every slot loaded
  for (const uint32_t k : {s.rows + 1, s.rows / 2, k_max - 1})
    expect_ones_times_twos(*array_, {6, s.cols / 2, k, mode}, one, two);
}

// Passes of different modes on one array, one after the other (as the simulator issues them):
// nothing of one pass's mode carries into the next.
TEST_P(RtlPeArrayMode, ModesAlternateFromPassToPass) {
  const Size s = GetParam().size;
  const isa::DType mode = GetParam().mode;
  const uint32_t k_max = s.rows * array_->macs();
  for (int round = 0; round < 3; ++round) {
    check_pass(*array_, {31, s.cols, s.rows}, rng_, random_value);
    check_pass(*array_, {31, s.cols, k_max, mode}, rng_, values());
    check_pass(*array_, {7, 1, s.rows / 2 + 1}, rng_, random_value);
    check_pass(*array_, {9, s.cols - 1, s.rows + 1, mode}, rng_, values());
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltSizes, RtlPeArrayMode,
                         ::testing::Values(ModeCase{{32, 32}, isa::DType::BF16},
                                           ModeCase{{32, 32}, isa::DType::F16},
                                           ModeCase{{16, 16}, isa::DType::BF16},
                                           ModeCase{{8, 4}, isa::DType::F16}),
                         mode_case_name);

TEST(RtlPeArray, SixteenBitPassLimitsAreUserErrors) {
  const auto array = make_rtl_pe_array(8, 4);
  ASSERT_EQ(array->macs(), 2u);
  std::vector<uint32_t> buf(size_t{2048} * 16, 0);
  const uint32_t* in = buf.data();
  uint32_t* out = buf.data();
  EXPECT_THROW(array->run_pass({1, 4, 17, isa::DType::BF16}, in, 17, in, 4, out, 4), UserError);
  EXPECT_THROW(array->run_pass({1, 4, 9, isa::DType::F32}, in, 9, in, 4, out, 4), UserError);
  EXPECT_THROW(array->run_pass({1, 4, 8, isa::DType::I32}, in, 8, in, 4, out, 4), UserError);
  EXPECT_THROW(array->set_input_bytes_per_cycle(31), UserError);
  // 16 bf16 steps: 8 + 7 + 3 + 1 + 2 + 1 (the second chain's add).
  EXPECT_EQ(array->run_pass({1, 4, 16, isa::DType::BF16}, in, 16, in, 4, out, 4),
            16u + 7 + 3 + 1 + 2 + 1);
}

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
