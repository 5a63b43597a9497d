// Copies between DRAM and host memory over the target's host link (issue 20 point 1), through
// the whole simulator: the DMA engines' timing against the link's bandwidth and latency, the
// overlap with compute, the functional result, the shadow-memory checker over both address
// spaces, the reports, and the errors of a program a target cannot hold.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "isa/asm/assembler.h"
#include "isa/common/errors.h"
#include "isa/common/json.h"
#include "simulator/dram/load_target.h"
#include "simulator/report/json_report.h"
#include "simulator/report/physics_check.h"
#include "simulator/run/run_program.h"

namespace s2::sim {
namespace {

const target::TargetDesc& base() {
  static const target::TargetDesc t =
      target::load_target(std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml");
  return t;
}

// 1 MiB swapped out to host memory and back in: DRAM a -> host h -> DRAM b.
constexpr uint64_t kBytes = 1 << 20;
const char* const kSwap =
    ".target s2train_base\n"
    ".tensor a scratch f32[512,512] @0x0 data=fill(1.25)\n"
    ".tensor b scratch f32[512,512] @0x100000\n"
    ".tensor h scratch f32[512,512] @host:0x0\n"
    "copy src=a dst=h\n"
    "copy src=h dst=b deps=0\n"
    "end deps=1\n";

RunOutput run(const isa::Executable& exe, const target::TargetDesc& target, bool functional) {
  RunOptions options;
  options.compute = functional;
  options.check = functional;
  options.program = "swap.bin";
  return run_program(exe, target, options);
}

TEST(HostLinkRun, ACopyTakesTheLinksBandwidthAndLatency) {
  const isa::Executable exe = isa::assemble(kSwap, "swap.s2asm");
  const RunOutput out = run(exe, base(), false);
  const report::RunResult& r = out.timing;
  // The base config's PCIe 4.0 x16 preset: 26 GB/s each way, 800 ns, at a 1 GHz clock. A 1 MiB
  // copy moves its bytes through the link in 1 MiB / 26 B per cycle = 40330 cycles, and its last
  // tile's data lands 800 cycles later; the DRAM side (51.2 GB/s) and the engines (2 x 64 B per
  // cycle) are faster and overlap with it, tile by tile.
  const uint64_t link_cycles = (kBytes * 1000 + 25999) / 26000;
  for (uint32_t i : {0u, 1u}) {
    const report::InstructionRecord& rec = r.instructions[i];
    EXPECT_EQ(rec.host_bytes, kBytes);
    EXPECT_EQ(rec.dram_bytes, kBytes);
    EXPECT_EQ(rec.roofline_cycles, link_cycles) << "the link bounds a copy to or from the host";
    EXPECT_GE(rec.cycles(), link_cycles + 800);
    EXPECT_LE(rec.cycles(), (link_cycles + 800) * 105 / 100) << "within 5% of the link's time";
  }
  ASSERT_TRUE(r.host_link.has_value());
  EXPECT_EQ(r.host_link->to_host_bytes, kBytes);
  EXPECT_EQ(r.host_link->from_host_bytes, kBytes);
  EXPECT_EQ(r.host_link->used_bytes, kBytes);
  EXPECT_NEAR(static_cast<double>(r.host_link->to_host_busy_cycles),
              static_cast<double>(link_cycles), 2.0 * static_cast<double>(r.instructions[0].tiles));
  // DRAM counts only its own side: a read of a and a write of b.
  EXPECT_EQ(r.dram.bytes_read, kBytes);
  EXPECT_EQ(r.dram.bytes_written, kBytes);
  EXPECT_TRUE(report::roofline_violations(r).empty());
  std::ostringstream json;
  report::write_json_report(r, json);
  const Json report = Json::parse(json.str());
  EXPECT_EQ(report["host_link"]["to_host_bytes"], kBytes);
  EXPECT_EQ(report["host_link"]["memory_bytes"], uint64_t{256} << 30);
  EXPECT_EQ(report["instructions"][0]["host_bytes"], kBytes);
}

TEST(HostLinkRun, SwappingOverlapsWithCompute) {
  // A swap-out beside a PE instruction: the DMA runs while the array computes.
  const char* const kBeside =
      ".target s2train_base\n"
      ".tensor a scratch f32[512,512] @0x0 data=fill(1)\n"
      ".tensor h scratch f32[512,512] @host:0x0\n"
      ".tensor x scratch f32[256,256] @0x100000 data=fill(0.5)\n"
      ".tensor y scratch f32[256,256] @0x140000\n"
      "copy src=a dst=h\n"
      "gemm a=x b=x y=y\n"
      "end deps=0,1\n";
  const report::RunResult both = run(isa::assemble(kBeside, "beside.s2asm"), base(), false).timing;
  const uint64_t copy = both.instructions[0].cycles(), gemm = both.instructions[1].cycles();
  EXPECT_LT(both.total_cycles, (copy + gemm) * 9 / 10);
  EXPECT_LE(both.instructions[1].start_cycle, both.instructions[0].end_cycle);
}

TEST(HostLinkRun, TheReportSaysHowLongComputeWaitedForTheLink) {
  // The gemm needs b, which comes back from host memory: the PE array waits for the swap-in.
  const char* const kWait =
      ".target s2train_base\n"
      ".tensor a scratch f32[256,256] @0x0 data=fill(1)\n"
      ".tensor h scratch f32[256,256] @host:0x0\n"
      ".tensor b scratch f32[256,256] @0x40000\n"
      ".tensor y scratch f32[256,256] @0x80000\n"
      "copy src=a dst=h\n"
      "copy src=h dst=b deps=0\n"
      "gemm a=b b=b y=y deps=1\n"
      "end deps=2\n";
  const report::RunResult r = run(isa::assemble(kWait, "wait.s2asm"), base(), false).timing;
  ASSERT_TRUE(r.host_link.has_value());
  EXPECT_EQ(r.host_link->compute_wait_cycles, r.instructions[1].end_cycle);
  EXPECT_EQ(r.instructions[2].start_cycle, r.instructions[1].end_cycle);
  // Nothing waits in a program whose compute does not depend on the link.
  EXPECT_EQ(
      run(isa::assemble(kSwap, "swap.s2asm"), base(), false).timing.host_link->compute_wait_cycles,
      0u);
}

TEST(HostLinkRun, FunctionalSwapRoundTripsTheBitsAndTheCheckerIsClean) {
  const isa::Executable exe = isa::assemble(kSwap, "swap.s2asm");
  RunOptions options;
  options.check = true;
  options.capture = {0, 1, 2};
  const RunOutput out = run_program(exe, base(), options);
  ASSERT_TRUE(out.checked);
  EXPECT_TRUE(out.findings.empty()) << out.findings.size() << " findings";
  EXPECT_EQ(out.captured[1], out.captured[0]);
  EXPECT_EQ(out.captured[2], out.captured[0]) << "the host tensor holds a's bytes";
}

TEST(HostLinkRun, TheCheckerCoversHostMemory) {
  // Reading host bytes nobody wrote; then a swap-in that does not wait for its swap-out.
  const char* const kUnwritten =
      ".target s2train_base\n"
      ".tensor b scratch f32[64] @0x0\n"
      ".tensor h scratch f32[64] @host:0x100\n"
      "copy src=h dst=b\n"
      "end deps=0\n";
  RunOptions options;
  options.check = true;
  std::vector<checker::Finding> findings =
      run_program(isa::assemble(kUnwritten, "u.s2asm"), base(), options).findings;
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, checker::FindingKind::NeverWritten);
  EXPECT_TRUE(findings[0].host);
  EXPECT_EQ(findings[0].begin, 0x100u);
  EXPECT_EQ(findings[0].tensor, "h");
  EXPECT_NE(checker::format_findings(findings).find("host:0x100..0x200"), std::string::npos)
      << checker::format_findings(findings);

  std::string racy = kSwap;
  racy.replace(racy.find("dst=b deps=0"), 12, "dst=b");
  findings = run_program(isa::assemble(racy, "racy.s2asm"), base(), options).findings;
  bool hazard = false;
  for (const checker::Finding& f : findings)
    hazard = hazard || (f.kind == checker::FindingKind::Hazard && f.host && f.detail == "RAW");
  EXPECT_TRUE(hazard) << checker::format_findings(findings);
}

TEST(HostLinkRun, ATargetMustHaveTheLinkAndTheMemory) {
  const isa::Executable exe = isa::assemble(kSwap, "swap.s2asm");
  target::TargetDesc no_link = base();
  no_link.host_link.reset();
  try {
    run(exe, no_link, false);
    FAIL() << "ran without a host link";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("swap.bin: memory plan: host_size 1048576 bytes of host "
                                         "memory, but configuration 's2train_base' has no "
                                         "host_link"),
              std::string::npos)
        << e.what();
  }
  target::TargetDesc small = base();
  small.host_link->memory_bytes = kBytes / 2;
  try {
    run(exe, small, false);
    FAIL() << "ran with too little host memory";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("host_size 1048576 bytes exceeds the 524288 bytes of "
                                         "host memory of configuration 's2train_base' "
                                         "(host_link.memory)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace s2::sim
