// The report renderers on a hand-made RunResult: the physics check names the instruction that
// beat its roofline, layers group by op-name prefix, and the memory CSV has its header.
#include <gtest/gtest.h>

#include <sstream>

#include "isa/common/errors.h"
#include "simulator/report/memory_trace.h"
#include "simulator/report/physics_check.h"
#include "simulator/report/summary.h"

namespace s2::sim::report {
namespace {

RunResult two_instructions() {
  RunResult r;
  r.clock_mhz = 1000;
  r.total_cycles = 100;
  InstructionRecord a;
  a.index = 0;
  a.op = "layer1.0.conv1";
  a.unit = isa::Unit::Pe;
  a.start_cycle = 0;
  a.end_cycle = 60;
  a.roofline_cycles = 60;
  InstructionRecord b = a;
  b.index = 1;
  b.op = "layer1.0.bn1";
  b.unit = isa::Unit::Ppu;
  b.start_cycle = 60;
  b.end_cycle = 100;
  b.roofline_cycles = 40;
  r.instructions = {a, b};
  r.memory = {{0, 10}, {60, 30}, {60, 20}};
  return r;
}

// The summary's first line gives the clock as configured: 0.001 MHz printed as "0 MHz".
TEST(RunReports, SummaryGivesTheClockAsConfigured) {
  RunResult r = two_instructions();
  r.program = "p.bin";
  r.config = "c";
  for (const auto& [mhz, text] : {std::pair<double, std::string>{1000, "(1000 MHz,"},
                                  {933.5, "(933.5 MHz,"},
                                  {0.001, "(0.001 MHz,"}}) {
    r.clock_mhz = mhz;
    const std::string summary = summary_text(r);
    EXPECT_EQ(summary.rfind("Simulated p.bin on c " + text, 0), 0u) << summary;
    EXPECT_EQ(summary.find("compiled for"), std::string::npos) << summary;
  }
  // An executable compiled for another target says so.
  r.compiled_for = "s2train_base";
  EXPECT_NE(summary_text(r).find("\n  compiled for       s2train_base (its memory plan"),
            std::string::npos)
      << summary_text(r);
}

TEST(RunReports, PhysicsCheckPassesAtTheBoundAndNamesAViolation) {
  RunResult r = two_instructions();
  EXPECT_NO_THROW(check_roofline(r));
  r.instructions[1].roofline_cycles = 41;
  EXPECT_EQ(roofline_violations(r), std::vector<uint32_t>{1});
  try {
    check_roofline(r);
    FAIL() << "no InternalError";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("instruction 1 (layer1.0.bn1) 40 < 41"), std::string::npos)
        << e.what();
  }
}

TEST(RunReports, LayersGroupByOpNamePrefix) {
  EXPECT_EQ(layer_of("layer1.0.conv1"), "layer1");
  EXPECT_EQ(layer_of("fc"), "fc");
  EXPECT_EQ(layer_of("/features/features.3/conv/conv.1/conv.1.0/Conv"), "features.3");
  EXPECT_EQ(layer_of("/layer1/layer1.0/relu_1/Relu"), "layer1.0");
  EXPECT_EQ(layer_of("/fc/Gemm"), "fc");
  EXPECT_EQ(layer_of("/Flatten"), "Flatten");
  RunResult r = two_instructions();
  r.pe_count = 4;
  r.instructions[0].macs = 120;  // 120 MACs in 60 PE cycles on 4 PEs: half the multipliers
  const std::string table = layer_table(r);
  EXPECT_NE(table.find("layer1       2           60           40"), std::string::npos) << table;
  EXPECT_NE(table.find("100.0%    50.0%"), std::string::npos) << table;
}

TEST(RunReports, MemoryTraceKeepsEveryChangeInOrder) {
  std::ostringstream os;
  write_memory_trace(two_instructions(), os);
  EXPECT_EQ(os.str(), "time_cycles,live_bytes\n0,10\n60,30\n60,20\n");
}

}  // namespace
}  // namespace s2::sim::report
