// The PPU RTL (rtl_models/ppu/ppu.sv, plain Verilator builds with 32 and 16 lanes) against the
// s2::numerics reference, bit for bit, and its pass timing: latency + ceil(E / width) cycles.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/numerics/low_precision.h"
#include "rtl_models/ppu/ppu_rtl.h"
#include "tests/rtl_models/ppu_test_util.h"

namespace s2::rtl::test {
namespace {

class PpuRtlTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override { ppu_ = make_rtl_ppu(GetParam()); }

  void expect_matches(PpuPass pass, const PassInputs& in) {
    pass.elements = in.size();
    const PassResult want = reference_pass(pass, in);
    const PassResult got = rtl_pass(*ppu_, pass, in);
    const std::string diff = first_mismatch(pass, in, want, got);
    EXPECT_TRUE(diff.empty()) << diff;
  }

  std::unique_ptr<RtlPpu> ppu_;
};

TEST_P(PpuRtlTest, ReportsItsLanes) {
  EXPECT_EQ(ppu_->lanes(), GetParam());
}

TEST_P(PpuRtlTest, RandomOperandsMatchNumerics) {
  const uint32_t lanes = GetParam();
  uint64_t seed = 1;
  for (PpuPass pass : op_variants()) {
    // Full width and a ragged narrower width, each over a ragged element count.
    for (uint32_t width : {lanes, lanes / 2 - 1}) {
      pass.width = width;
      pass.latency = 4;
      expect_matches(pass, random_inputs(seed++, 3 * lanes + 7));
    }
  }
}

TEST_P(PpuRtlTest, SpecialValuesMatchNumerics) {
  const PassInputs in = special_inputs();
  for (PpuPass pass : op_variants()) {
    pass.width = GetParam();
    pass.latency = 2;
    expect_matches(pass, in);
  }
}

TEST_P(PpuRtlTest, LongerRandomPassesMatchNumerics) {
  uint64_t seed = 1000;
  for (PpuRtlOp op :
       {PpuRtlOp::Add, PpuRtlOp::Mul, PpuRtlOp::Axpby, PpuRtlOp::Sgd, PpuRtlOp::Epilogue}) {
    PpuPass pass;
    pass.op = op;
    pass.width = GetParam();
    pass.latency = 9;
    pass.alpha = 0x3F9E0652u;
    pass.beta = 0xBFC90FDBu;
    pass.lr = 0x3C23D70Au;
    pass.momentum = 0x3F666666u;
    pass.weight_decay = 0x38D1B717u;
    pass.bias = pass.residual = pass.relu = pass.gate = true;
    expect_matches(pass, random_inputs(seed++, 20000));
  }
}

// The casts' widening, exhaustively: every bf16 and every f16 pattern (the upper half of each
// word set to garbage, which the load must not read) to f32.
TEST_P(PpuRtlTest, CastWidensEvery16BitPattern) {
  PassInputs in;
  for (uint32_t h = 0; h < 0x10000u; ++h)
    in.in[0].push_back(h | (h * 0x9E37u) << 16);
  for (int k = 1; k < 4; ++k)
    in.in[static_cast<size_t>(k)].assign(in.size(), 0);
  for (PpuRtlType from : {PpuRtlType::Bf16, PpuRtlType::F16}) {
    PpuPass pass;
    pass.op = PpuRtlOp::Cast;
    pass.width = GetParam();
    pass.latency = 3;
    pass.in_type[0] = from;
    expect_matches(pass, in);
    pass.out_type[0] = from;  // widened and rounded back: the same value (NaN canonical)
    expect_matches(pass, in);
  }
}

// The casts' rounding at every boundary: for each 16-bit value, the f32 halfway to its upper
// neighbour (a tie) and the f32 values one ulp either side of that, plus fp16's overflow
// threshold and subnormal range, the special values and random patterns.
TEST_P(PpuRtlTest, CastRoundsAtEveryBoundary) {
  for (PpuRtlType to : {PpuRtlType::Bf16, PpuRtlType::F16}) {
    PassInputs in;
    auto add = [&](uint32_t x) {
      in.in[0].push_back(x);
      in.in[0].push_back(x ^ 0x80000000u);  // both signs
    };
    for (uint32_t h = 0; h < 0x7C00u; ++h) {
      uint32_t mid = 0;
      if (to == PpuRtlType::Bf16) {
        mid = (h << 16) | 0x8000u;  // bf16 patterns below 0x7C00 cover 2^-126 .. 2^121
      } else {
        const double lo = numerics::f16_to_f32(static_cast<uint16_t>(h));
        const double hi = numerics::f16_to_f32(static_cast<uint16_t>(h + 1));
        mid = f32_bits(static_cast<float>((lo + hi) / 2));  // exact: 12 significant bits
      }
      add(mid - 1);
      add(mid);
      add(mid + 1);
    }
    for (uint32_t x : special_values())
      add(x);
    for (uint32_t x : {0x477FF000u, 0x477FEFFFu, 0x477FE000u, 0x33000000u, 0x33000001u, 0x32FFFFFFu,
                       0x387FC000u, 0x387FE000u, 0x7F7F8000u, 0x7F7F7FFFu})
      add(x);
    ValueGen gen(77);
    for (int i = 0; i < 20000; ++i)
      add(gen.next());
    for (int k = 1; k < 4; ++k)
      in.in[static_cast<size_t>(k)].assign(in.size(), 0);
    PpuPass pass;
    pass.op = PpuRtlOp::Cast;
    pass.width = GetParam();
    pass.latency = 5;
    pass.out_type[0] = to;
    expect_matches(pass, in);
  }
}

// Every op reading 16-bit streams and writing 16-bit results: the lanes compute in fp32
// between the load's widening and the store's rounding. Inputs are random 16-bit patterns
// under garbage upper halves; the type mixes cover each type on each side.
TEST_P(PpuRtlTest, OpsLoadAndStore16BitStreams) {
  const PpuRtlType B = PpuRtlType::Bf16, H = PpuRtlType::F16, F = PpuRtlType::F32;
  const std::array<std::array<PpuRtlType, 6>, 4> mixes = {{
      {B, B, B, B, B, F},  // all bf16, the SGD velocity (optimizer state) in f32
      {H, H, H, H, H, H},
      {B, H, F, B, F, B},
      {F, F, H, H, H, F},
  }};
  uint64_t seed = 500;
  for (const auto& mix : mixes) {
    for (PpuPass pass : op_variants()) {
      for (size_t k = 0; k < 4; ++k)
        pass.in_type[k] = mix[k];
      pass.out_type[0] = mix[4];
      pass.out_type[1] = mix[5];
      pass.width = GetParam();
      pass.latency = 4;
      PassInputs in = random_inputs(seed++, 2 * GetParam() + 5);
      for (size_t k = 0; k < 4; ++k) {
        if (mix[k] == F) continue;
        ValueGen gen(seed++);
        for (uint32_t& w : in.in[k]) {
          // A 16-bit pattern: the top half of a generated f32 (bf16-like exponents) or its
          // low bits (every f16 class), over garbage.
          const uint32_t v = gen.next();
          w = ((v >> (k % 2 == 0 ? 16 : 0)) & 0xFFFFu) | (v << 16);
        }
      }
      expect_matches(pass, in);
    }
  }
}

// Cycles = latency + ceil(E / width), from the pipeline's structure: E below, at and above the
// width, ragged E, every latency extreme.
TEST_P(PpuRtlTest, PassCyclesAreLatencyPlusBeats) {
  const uint32_t lanes = GetParam();
  struct Case {
    uint64_t elements;
    uint32_t width;
    uint32_t latency;
  };
  const Case cases[] = {
      {1, 1, 1},
      {1, lanes, 1},
      {5, lanes, 4},
      {lanes - 1, lanes, 4},
      {lanes, lanes, 4},
      {lanes + 1, lanes, 4},
      {100, lanes / 2, 8},
      {1000, 8, 64},
      {7, 3, 2},
      {2 * lanes, lanes, 64},
      {1, 1, 64},
      {97, 13, 5},
      {4096, lanes / 4, 12},
      {3, lanes, 63},
      {lanes * 10 + 3, lanes, 16},
  };
  uint64_t seed = 77;
  for (const Case& c : cases) {
    PpuPass pass;
    pass.op = PpuRtlOp::Add;
    pass.width = c.width;
    pass.latency = c.latency;
    const PassInputs in = random_inputs(seed++, c.elements);
    pass.elements = c.elements;
    const PassResult got = rtl_pass(*ppu_, pass, in);
    EXPECT_EQ(got.cycles, c.latency + (c.elements + c.width - 1) / c.width) << describe(pass);
    const std::string diff = first_mismatch(pass, in, reference_pass(pass, in), got);
    EXPECT_TRUE(diff.empty()) << diff;
  }
}

// Back-to-back passes with different latencies and ops: nothing of one pass leaks into the next.
TEST_P(PpuRtlTest, ConsecutivePassesAreIndependent) {
  uint64_t seed = 500;
  for (uint32_t latency : {64u, 1u, 2u, 33u, 1u}) {
    for (PpuRtlOp op : {PpuRtlOp::Sub, PpuRtlOp::Max, PpuRtlOp::ScaleShift}) {
      PpuPass pass;
      pass.op = op;
      pass.width = GetParam();
      pass.latency = latency;
      pass.alpha = 0x40490FDBu;
      pass.beta = 0x3F800000u;
      const uint64_t n = 1 + seed % 50;
      expect_matches(pass, random_inputs(seed++, n));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Lanes, PpuRtlTest, ::testing::Values(32u, 16u),
                         [](const ::testing::TestParamInfo<uint32_t>& param_info) {
                           return "L" + std::to_string(param_info.param);
                         });

// ---- bad passes: user errors that say what is wrong ----

template <class F>
std::string user_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

TEST(PpuRtlErrors, UnbuiltLaneCountListsTheBuiltOnes) {
  const std::string msg = user_error_of([] { make_rtl_ppu(128); });
  EXPECT_NE(msg.find("128 lanes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("32, 16"), std::string::npos) << msg;
}

TEST(PpuRtlErrors, OutOfContractPassesAreRejected) {
  auto ppu = make_rtl_ppu(16);
  uint32_t a[4] = {1, 2, 3, 4}, y[4] = {};
  auto run = [&](PpuPass p) {
    return user_error_of([&] { ppu->run_pass(p, a, a, nullptr, nullptr, y, nullptr); });
  };
  PpuPass ok;
  ok.op = PpuRtlOp::Mul;
  ok.elements = 4;
  ok.width = 16;
  ok.latency = 3;
  EXPECT_EQ(ppu->run_pass(ok, a, a, nullptr, nullptr, y, nullptr), 4u);

  PpuPass p = ok;
  p.elements = 0;
  EXPECT_NE(run(p).find("0 elements"), std::string::npos) << run(p);
  p.elements = 1ull << 32;
  EXPECT_NE(run(p).find("4294967296 elements"), std::string::npos) << run(p);
  p = ok;
  p.width = 0;
  EXPECT_NE(run(p).find("width 0"), std::string::npos) << run(p);
  p.width = 17;
  EXPECT_NE(run(p).find("width 17 elements per cycle on 16 lanes"), std::string::npos) << run(p);
  p = ok;
  p.latency = 0;
  EXPECT_NE(run(p).find("latency 0"), std::string::npos) << run(p);
  p.latency = kPpuMaxLatency + 1;
  EXPECT_NE(run(p).find("latency 65"), std::string::npos) << run(p);
  p = ok;
  p.op = static_cast<PpuRtlOp>(12);
  EXPECT_NE(run(p).find("unknown op code 12"), std::string::npos) << run(p);
  p = ok;
  p.in_type[2] = static_cast<PpuRtlType>(3);
  EXPECT_NE(run(p).find("input type code 3"), std::string::npos) << run(p);
  p = ok;
  p.out_type[1] = static_cast<PpuRtlType>(7);
  EXPECT_NE(run(p).find("output type code 7"), std::string::npos) << run(p);
}

TEST(PpuRtlErrors, MissingStreamsAreRejected) {
  auto ppu = make_rtl_ppu(32);
  uint32_t a[2] = {}, y[2] = {};
  PpuPass p;
  p.op = PpuRtlOp::Add;
  p.elements = 2;
  p.width = 32;
  p.latency = 1;
  std::string msg = user_error_of([&] { ppu->run_pass(p, a, nullptr, a, a, y, y); });
  EXPECT_NE(msg.find("ppu RTL add pass: input stream in1 is required"), std::string::npos) << msg;
  msg = user_error_of([&] { ppu->run_pass(p, a, a, a, a, nullptr, y); });
  EXPECT_NE(msg.find("output stream out0"), std::string::npos) << msg;
  p.op = PpuRtlOp::Sgd;
  p.momentum = 0x3F000000u;  // momentum: velocity is read
  msg = user_error_of([&] { ppu->run_pass(p, a, a, nullptr, nullptr, y, y); });
  EXPECT_NE(msg.find("sgd pass: input stream in2"), std::string::npos) << msg;
  p.momentum = 0x00000001u;  // subnormal: zero after DAZ, velocity not needed
  EXPECT_EQ(ppu->run_pass(p, a, a, nullptr, nullptr, y, nullptr), 2u);
  p.op = PpuRtlOp::Epilogue;
  p.gate = true;
  msg = user_error_of([&] { ppu->run_pass(p, a, nullptr, nullptr, nullptr, y, nullptr); });
  EXPECT_NE(msg.find("epilogue pass: input stream in3"), std::string::npos) << msg;
}

TEST(PpuRtlWidth, WholeElementsPerCycleOnly) {
  EXPECT_EQ(ppu_pass_width(32, 1.0, "ppu.ops.default"), 32u);
  EXPECT_EQ(ppu_pass_width(32, 0.5, "ppu.ops.sgd"), 16u);
  EXPECT_EQ(ppu_pass_width(16, 0.25, "ppu.ops.bn_bwd"), 4u);
  std::string msg = user_error_of([] { ppu_pass_width(32, 0.3, "ppu.ops.sgd"); });
  EXPECT_NE(msg.find("ppu.ops.sgd"), std::string::npos) << msg;
  EXPECT_NE(msg.find("whole number"), std::string::npos) << msg;
  msg = user_error_of([] { ppu_pass_width(2, 0.25, "ppu.ops.x"); });
  EXPECT_NE(msg.find("2 lanes * 0.25 = 0.5"), std::string::npos) << msg;
}

}  // namespace
}  // namespace s2::rtl::test
