// The SystemC Verilator build of the PE array (rtl_models/pe_array/pe_array_sc.h) against the
// plain C++ build: same bits, same cycles, SystemC time = cycles x clock period, and sc_start()
// returns after each pass (the clock only runs while a pass does).
#include "rtl_models/pe_array/pe_array_sc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <systemc>
#include <vector>

#include "isa/common/errors.h"
#include "rtl_models/pe_array/pe_array_rtl.h"

namespace s2::rtl {
namespace {

constexpr uint64_t kClockPs = 1250;  // 800 MHz

// Modules must exist before the first sc_start(): sc_main creates them.
RtlPeArraySc* g_sc32 = nullptr;
RtlPeArraySc* g_sc16 = nullptr;
std::string g_unbuilt_size_error;

uint32_t random_bits(std::mt19937_64& rng) {
  // Mostly finite values spread over +-2^20, sometimes any pattern (NaN, Inf, subnormal).
  if (rng() % 8 == 0) return static_cast<uint32_t>(rng());
  const uint32_t exp = 127 - 20 + static_cast<uint32_t>(rng() % 41);
  return (static_cast<uint32_t>(rng() & 1u) << 31) | (exp << 23) |
         static_cast<uint32_t>(rng() & 0x7FFFFFu);
}

void expect_same_as_plain(RtlPeArraySc& sc, uint32_t seed) {
  const auto plain = make_rtl_pe_array(sc.rows(), sc.cols());
  std::mt19937_64 rng(seed);
  // The module's first pass also runs two reset cycles; after it, time is exactly cycles.
  std::vector<uint32_t> one(1, 0x3F800000), sum(1, 0);
  sc.run_pass({1, 1, 1}, one.data(), 1, one.data(), 1, sum.data(), 1);
  EXPECT_EQ(sum[0], 0x3F800000u);
  for (int q = 0; q < 6; ++q) {
    const PePass p{1 + static_cast<uint32_t>(rng() % 70),
                   1 + static_cast<uint32_t>(rng() % sc.cols()),
                   1 + static_cast<uint32_t>(rng() % sc.rows())};
    SCOPED_TRACE("m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
                 " k=" + std::to_string(p.k));
    std::vector<uint32_t> x(size_t{p.m} * p.k), w(size_t{p.k} * p.n), c(size_t{p.m} * p.n);
    for (uint32_t& v : x)
      v = random_bits(rng);
    for (uint32_t& v : w)
      v = random_bits(rng);
    for (uint32_t& v : c)
      v = random_bits(rng);
    std::vector<uint32_t> c_plain = c;
    const sc_core::sc_time before = sc_core::sc_time_stamp();
    const uint64_t sc_cycles = sc.run_pass(p, x.data(), p.k, w.data(), p.n, c.data(), p.n);
    const sc_core::sc_time elapsed = sc_core::sc_time_stamp() - before;
    const uint64_t plain_cycles =
        plain->run_pass(p, x.data(), p.k, w.data(), p.n, c_plain.data(), p.n);
    EXPECT_EQ(sc_cycles, plain_cycles);
    EXPECT_EQ(sc_cycles, uint64_t{p.k} + (sc.rows() - 1) + (sc.cols() - 1) + p.m + 2);
    EXPECT_EQ(c, c_plain);
    EXPECT_EQ(elapsed, sc_core::sc_time(static_cast<double>(sc_cycles * kClockPs), sc_core::SC_PS));
  }
}

TEST(RtlPeArraySc, Size32MatchesThePlainBuild) {
  expect_same_as_plain(*g_sc32, 1);
}
TEST(RtlPeArraySc, Size16MatchesThePlainBuild) {
  expect_same_as_plain(*g_sc16, 2);
}

TEST(RtlPeArraySc, SimulationIsIdleBetweenPasses) {
  // Nothing is left to do after a pass: another sc_start() returns at once, time stands still.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  sc_core::sc_start();
  EXPECT_EQ(sc_core::sc_time_stamp(), now);
  EXPECT_FALSE(sc_core::sc_pending_activity());
}

TEST(RtlPeArraySc, UnbuiltSizeIsAUserError) {
  EXPECT_NE(g_unbuilt_size_error.find("24x24"), std::string::npos) << g_unbuilt_size_error;
  EXPECT_NE(g_unbuilt_size_error.find("32x32, 16x16"), std::string::npos) << g_unbuilt_size_error;
}

TEST(RtlPeArraySc, PassOutsideTheLimitsIsAUserError) {
  std::vector<uint32_t> buf(64, 0);
  EXPECT_THROW(g_sc16->run_pass({1, 17, 1}, buf.data(), 1, buf.data(), 17, buf.data(), 17),
               UserError);
}

// Last: once a VCD is open every later pass is traced.
TEST(RtlPeArraySc, VcdOfAPass) {
  try {
    g_sc16->open_vcd("/nonexistent-dir/x.vcd");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.vcd"), std::string::npos) << e.what();
  }
  const std::string path = ::testing::TempDir() + "pe_array_sc_test.vcd";
  g_sc16->open_vcd(path);
  std::vector<uint32_t> x(4, 0x3F800000), w(4, 0x40000000), c(4, 0);
  EXPECT_EQ(g_sc16->run_pass({2, 2, 2}, x.data(), 2, w.data(), 2, c.data(), 2),
            2u + 15 + 15 + 2 + 2);
  EXPECT_EQ(c[0], 0x40800000u);  // 1*2 + 1*2
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  std::FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::fseek(f, 0, SEEK_END);
  EXPECT_GT(std::ftell(f), 1000);
  std::fclose(f);
}

}  // namespace
}  // namespace s2::rtl

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  using s2::rtl::RtlPeArraySc;
  try {
    RtlPeArraySc unbuilt("unbuilt", 24, 24, s2::rtl::kClockPs);
  } catch (const s2::UserError& e) {
    s2::rtl::g_unbuilt_size_error = e.what();
  }
  auto sc32 = std::make_unique<RtlPeArraySc>("pe_array_32", 32, 32, s2::rtl::kClockPs);
  auto sc16 = std::make_unique<RtlPeArraySc>("pe_array_16", 16, 16, s2::rtl::kClockPs);
  s2::rtl::g_sc32 = sc32.get();
  s2::rtl::g_sc16 = sc16.get();
  return RUN_ALL_TESTS();
}
