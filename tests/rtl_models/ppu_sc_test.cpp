// The SystemC Verilator build of the PPU (RtlPpuSc, rtl_models/ppu/ppu_sc.h) against the plain
// build: same bits, same cycles; plus its clocking contract (time advances only while a pass
// runs) and VCD tracing. Own sc_main: the module must exist before the first sc_start().
#include "rtl_models/ppu/ppu_sc.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <systemc>

#include "isa/common/errors.h"
#include "rtl_models/ppu/ppu_rtl.h"
#include "tests/rtl_models/ppu_test_util.h"

namespace s2::rtl::test {
namespace {

RtlPpuSc* g_sc = nullptr;
constexpr uint64_t kPeriodPs = 1250;  // 800 MHz

void expect_sc_equals_plain(RtlPpu& plain, PpuPass pass, const PassInputs& in) {
  pass.elements = in.size();
  const PassResult want = reference_pass(pass, in);
  const PassResult p = rtl_pass(plain, pass, in);
  const PassResult s = rtl_pass(*g_sc, pass, in);
  EXPECT_EQ(s.cycles, p.cycles) << describe(pass);
  EXPECT_TRUE(s.out0 == p.out0 && s.out1 == p.out1) << first_mismatch(pass, in, p, s);
  const std::string diff = first_mismatch(pass, in, want, s);
  EXPECT_TRUE(diff.empty()) << diff;
}

TEST(PpuScTest, EveryOpMatchesThePlainBuild) {
  auto plain = make_rtl_ppu(32);
  const PassInputs special = special_inputs();
  uint64_t seed = 9;
  for (PpuPass pass : op_variants()) {
    pass.latency = 4;
    pass.width = 32;
    expect_sc_equals_plain(*plain, pass, special);
    pass.width = 15;
    pass.latency = 7;
    expect_sc_equals_plain(*plain, pass, random_inputs(seed++, 101));
  }
}

TEST(PpuScTest, CyclesAndSimulatedTimeFollowThePasses) {
  auto plain = make_rtl_ppu(32);
  struct Case {
    uint64_t elements;
    uint32_t width, latency;
  };
  const Case cases[] = {{1, 1, 1},    {31, 32, 4},   {32, 32, 4}, {33, 32, 4},
                        {100, 16, 8}, {1000, 8, 64}, {97, 13, 5}, {5000, 32, 12}};
  uint64_t seed = 40;
  for (const Case& c : cases) {
    PpuPass pass;
    pass.op = PpuRtlOp::Axpby;
    pass.alpha = 0x3F000000u;
    pass.beta = 0xC0000000u;
    pass.width = c.width;
    pass.latency = c.latency;
    const PassInputs in = random_inputs(seed++, c.elements);
    expect_sc_equals_plain(*plain, pass, in);
    pass.elements = c.elements;
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    const uint64_t cycles = rtl_pass(*g_sc, pass, in).cycles;
    const sc_core::sc_time t1 = sc_core::sc_time_stamp();
    EXPECT_EQ(cycles, expected_cycles(pass)) << describe(pass);
    EXPECT_EQ(t1 - t0, g_sc->clock_period() * static_cast<double>(cycles)) << describe(pass);
    // The clock runs only inside a pass: nothing is left to simulate between passes.
    EXPECT_FALSE(sc_core::sc_pending_activity()) << describe(pass);
  }
}

TEST(PpuScTest, BadPassesAreUserErrorsAndTheModuleStaysUsable) {
  uint32_t a[3] = {0x3F800000u, 0x40000000u, 0x40400000u}, y[3] = {};
  PpuPass p;
  p.op = PpuRtlOp::Add;
  p.elements = 3;
  p.width = 33;
  p.latency = 2;
  EXPECT_THROW(g_sc->run_pass(p, a, a, nullptr, nullptr, y, nullptr), UserError);
  p.width = 2;
  EXPECT_EQ(g_sc->run_pass(p, a, a, nullptr, nullptr, y, nullptr), 4u);
  EXPECT_EQ(y[2], 0x40C00000u);  // 3 + 3
  EXPECT_EQ(g_sc->lanes(), 32u);
  EXPECT_EQ(g_sc->clock_period(), sc_core::sc_time(static_cast<double>(kPeriodPs), sc_core::SC_PS));
  try {
    RtlPpuSc::checked_clock_period(1001);
    ADD_FAILURE() << "odd period accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("1001 ps"), std::string::npos) << e.what();
  }
}

// Last: tracing slows every later pass.
TEST(PpuScTest, VcdTraceOfAPass) {
  const std::string bad = "/nonexistent-dir/ppu.vcd";
  try {
    g_sc->open_vcd(bad);
    ADD_FAILURE() << "opened " << bad;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  const std::string path = ::testing::TempDir() + "rtl_ppu_sc_test.vcd";
  std::remove(path.c_str());
  g_sc->open_vcd(path);
  PpuPass pass;
  pass.op = PpuRtlOp::Relu;
  pass.width = 32;
  pass.latency = 3;
  const PassInputs in = random_inputs(3, 70);
  pass.elements = in.size();
  EXPECT_EQ(rtl_pass(*g_sc, pass, in).cycles, 3u + 3u);
  g_sc->close_vcd();
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  const std::string vcd = text.str();
  EXPECT_NE(vcd.find("$var"), std::string::npos);
  EXPECT_NE(vcd.find(" out_valid "), std::string::npos);
  EXPECT_NE(vcd.find(" done "), std::string::npos);
  EXPECT_NE(vcd.find("#"), std::string::npos);
}

}  // namespace
}  // namespace s2::rtl::test

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  s2::rtl::RtlPpuSc ppu("ppu", s2::rtl::test::kPeriodPs);
  s2::rtl::test::g_sc = &ppu;
  return RUN_ALL_TESTS();
}
