// The PPU RTL (rtl_models/ppu/ppu.sv, plain Verilator builds with 32 and 16 lanes) against the
// s2::numerics reference, bit for bit, and its pass timing: latency + ceil(E / width) cycles.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "isa/common/errors.h"
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
  p.op = static_cast<PpuRtlOp>(11);
  EXPECT_NE(run(p).find("unknown op code 11"), std::string::npos) << run(p);
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
