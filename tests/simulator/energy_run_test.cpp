// The energy model on whole simulated steps: energy follows DRAM traffic at fixed compute,
// falls when a larger SRAM removes traffic, the summary's energy is the sum of its breakdown,
// and a bigger array costs more area.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../common/run_command.h"
#include "isa/common/json.h"
#include "isa/container/reader.h"
#include "simulator/dram/load_target.h"
#include "simulator/report/json_report.h"
#include "simulator/report/summary.h"
#include "simulator/run/run_program.h"

namespace s2::sim {
namespace {
namespace fs = std::filesystem;

const std::string kConfigs = std::string(S2_SOURCE_DIR) + "/configs";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The base configuration with `from` replaced by `to` in its text.
target::TargetDesc base_with(const std::string& from = "", const std::string& to = "") {
  std::string text = read_text(kConfigs + "/s2train_base.yaml");
  if (!from.empty()) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  return target::parse_target(text, "base.yaml", kConfigs + "/dram");
}

isa::Executable compile(const std::string& args) {
  char tmpl[] = "/tmp/s2_energy_run_XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path bin = dir / "step.bin";
  const auto r = s2::test::run_command(std::string(S2C_PATH) + " compile " + args + " -o " +
                                       s2::test::shell_quoted(bin.string()));
  EXPECT_EQ(r.status, 0) << r.out;
  isa::Executable exe = isa::load_executable(bin.string());
  fs::remove_all(dir);
  return exe;
}

report::RunResult simulate(const isa::Executable& exe, const target::TargetDesc& t) {
  return run_program(exe, t, RunOptions{}).timing;
}

uint64_t dram_bytes(const report::RunResult& r) {
  return r.dram.bytes_read + r.dram.bytes_written;
}

TEST(EnergyRun, EnergyRisesWithDramTrafficAtFixedCompute) {
  const target::TargetDesc t = base_with();
  const report::RunResult fused = simulate(compile("mlp --batch 64"), t);
  const report::RunResult unfused = simulate(compile("mlp --batch 64 --no-fuse"), t);
  ASSERT_TRUE(fused.energy && unfused.energy);
  EXPECT_EQ(fused.total_macs, unfused.total_macs);
  EXPECT_EQ(fused.energy->pe_mac_pj, unfused.energy->pe_mac_pj);
  ASSERT_GT(dram_bytes(unfused), dram_bytes(fused));
  EXPECT_GT(unfused.energy->dma_pj, fused.energy->dma_pj);
  EXPECT_GT(unfused.energy->total_pj(), fused.energy->total_pj());
}

TEST(EnergyRun, EnergyFallsWhenALargerSramRemovesTraffic) {
  const isa::Executable exe = compile("mlp --batch 512");
  const auto buffers = [](const std::string& size) {
    return base_with("input:       {size: 256KiB", "input:       {size: " + size);
  };
  target::TargetDesc small = buffers("16KiB");
  target::TargetDesc large = buffers("64KiB");
  for (target::TargetDesc* t : {&small, &large})
    t->sram.weight.size_bytes = t->sram.input.size_bytes;
  const report::RunResult s = simulate(exe, small);
  const report::RunResult l = simulate(exe, large);
  ASSERT_LT(dram_bytes(l), dram_bytes(s));
  EXPECT_LT(l.energy->total_pj(), s.energy->total_pj());
  // The larger buffers cost more per access and more area, which the model also says.
  EXPECT_GT(energy::sram_access_energy_pj(*large.tech, large.sram.input),
            energy::sram_access_energy_pj(*small.tech, small.sram.input));
  EXPECT_GT(l.area->total_mm2(), s.area->total_mm2());
}

TEST(EnergyRun, TheReportedEnergyIsTheSumOfItsBreakdown) {
  const report::RunResult r = simulate(compile("lenet5 --batch 2"), base_with());
  std::ostringstream json;
  report::write_json_report(r, json);
  const Json report = Json::parse(json.str());
  const Json& e = report.at("energy");
  double sum = 0;
  for (const auto& part : e.at("parts_pj").items())
    sum += part.value().get<double>();
  EXPECT_NEAR(e.at("total_pj").get<double>(), sum, 1e-9 * sum);
  EXPECT_GT(sum, 0);
  EXPECT_EQ(e.at("counters").at("macs").get<uint64_t>(), r.total_macs);
  // The summary prints the same total, in mJ, and its groups' shares.
  const std::string text = report::summary_text(r);
  std::ostringstream mj;
  mj.precision(4);
  mj << std::fixed << sum * 1e-9 << " mJ per step";
  EXPECT_NE(text.find(mj.str()), std::string::npos) << text;
  EXPECT_NE(text.find("leakage"), std::string::npos) << text;
  const Json& a = report.at("area");
  EXPECT_NEAR(a.at("total_mm2").get<double>(), r.area->total_mm2(), 1e-12);
}

TEST(EnergyRun, ABiggerArrayCostsMoreArea) {
  const isa::Executable exe = compile("lenet5 --batch 2");
  const report::RunResult r32 = simulate(exe, base_with());
  const report::RunResult r64 = simulate(exe, base_with("rows: 32 ", "rows: 64 "));
  EXPECT_GT(r64.area->pe_array_mm2, 1.9 * r32.area->pe_array_mm2);
  EXPECT_GT(r64.area->total_mm2(), r32.area->total_mm2());
}

TEST(EnergyRun, NoTechnologyNoEnergy) {
  target::TargetDesc t = base_with();
  t.tech.reset();
  const report::RunResult r = simulate(compile("lenet5 --batch 2"), t);
  EXPECT_FALSE(r.energy.has_value());
  EXPECT_FALSE(r.area.has_value());
  EXPECT_EQ(report::summary_text(r).find("energy"), std::string::npos);
}

}  // namespace
}  // namespace s2::sim
