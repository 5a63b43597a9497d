// `s2sim run` end to end on real executables (mlp and lenet5, compiled by s2c into a private
// temp directory) and on hand-built ones below the loader: completion, determinism, the
// physics check, unit overlap, the reports and the memory trace, rejection of bad inputs
// before simulation, and the deadlock report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "../common/run_command.h"
#include "isa/common/errors.h"
#include "isa/common/json.h"
#include "isa/container/reader.h"
#include "simulator/cli/run_command.h"
#include "simulator/dram/load_target.h"
#include "simulator/report/physics_check.h"
#include "simulator/top/memory_tracker.h"
#include "simulator/top/top.h"

namespace s2::sim {
namespace {

const std::string& temp_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/s2_run_test_XXXXXX";
    const char* made = mkdtemp(tmpl);
    return std::string(made == nullptr ? "/tmp" : made);
  }();
  return dir;
}

std::string base_config() {
  return std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml";
}

// Compiles `model` for the base config once per test binary run; returns the .bin path.
const std::string& compiled(const std::string& model) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(model);
  if (it != cache.end()) return it->second;
  const std::string out = temp_dir() + "/" + model + ".bin";
  const auto r = s2::test::run_command(
      std::string(S2C_PATH) + " compile " + model + " --force --config " +
      s2::test::shell_quoted(base_config()) + " -o " + s2::test::shell_quoted(out));
  EXPECT_EQ(r.status, 0) << r.out;
  return cache.emplace(model, out).first->second;
}

report::RunResult simulate_file(const std::string& path, uint32_t window = 64) {
  static const target::TargetDesc target = target::load_target(base_config());
  const isa::Executable exe = isa::load_executable(path);
  top::SimOptions options;
  options.window = window;
  return top::simulate(exe, target, options);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class RunProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(RunProgram, CompletesDeterministicallyAboveTheRoofline) {
  const report::RunResult a = simulate_file(compiled(GetParam()));
  const report::RunResult b = simulate_file(compiled(GetParam()));
  ASSERT_TRUE(a.deadlock.empty());
  EXPECT_GT(a.total_cycles, 0u);
  EXPECT_EQ(a.total_cycles, b.total_cycles);
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  for (size_t i = 0; i < a.instructions.size(); ++i) {
    EXPECT_EQ(a.instructions[i].start_cycle, b.instructions[i].start_cycle) << i;
    EXPECT_EQ(a.instructions[i].end_cycle, b.instructions[i].end_cycle) << i;
  }
  EXPECT_EQ(a.dram.bytes_read, b.dram.bytes_read);
  EXPECT_EQ(a.memory_peak, b.memory_peak);
  EXPECT_TRUE(report::roofline_violations(a).empty());
  EXPECT_NO_THROW(report::check_roofline(a));
  EXPECT_GE(a.total_cycles, a.roofline_cycles);
  EXPECT_GT(a.dram.bytes_read, 0u);
  EXPECT_GT(a.dram.bytes_written, 0u);
  // Every instruction ran once, after everything it depends on.
  const isa::Executable exe = isa::load_executable(compiled(GetParam()));
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    const report::InstructionRecord& r = a.instructions[i];
    EXPECT_LE(r.end_cycle, a.total_cycles);
    for (uint32_t d : exe.instructions[i].deps)
      EXPECT_GE(r.start_cycle, a.instructions[d].end_cycle) << i << " after " << d;
  }
}

TEST_P(RunProgram, UnitsOverlapUnlessSequential) {
  const report::RunResult overlapped = simulate_file(compiled(GetParam()));
  const report::RunResult sequential = simulate_file(compiled(GetParam()), 1);
  uint64_t busy = 0;
  for (isa::Unit u : report::kTimedUnits)
    busy += overlapped.unit(u).busy_cycles;
  EXPECT_LT(overlapped.total_cycles, busy);
  // With a window of one the units never overlap: the total is the sum of the durations.
  uint64_t seq_busy = 0;
  for (isa::Unit u : report::kTimedUnits)
    seq_busy += sequential.unit(u).busy_cycles;
  EXPECT_EQ(sequential.total_cycles, seq_busy);
  // Some PE instruction runs while a PPU instruction does.
  bool pe_ppu_overlap = false;
  for (const auto& p : overlapped.instructions)
    for (const auto& q : overlapped.instructions)
      if (p.unit == isa::Unit::Pe && q.unit == isa::Unit::Ppu && p.start_cycle < q.end_cycle &&
          q.start_cycle < p.end_cycle)
        pe_ppu_overlap = true;
  EXPECT_TRUE(pe_ppu_overlap);
}

TEST_P(RunProgram, SequentialMemoryPeakEqualsThePlan) {
  const std::string csv = temp_dir() + "/" + GetParam() + ".memory.csv";
  RunCommandOptions options;
  options.executable = compiled(GetParam());
  options.config = base_config();
  options.memory_trace = csv;
  options.window = 1;
  std::ostringstream out;
  ASSERT_EQ(run_simulation(options, out), 0);
  std::istringstream lines(slurp(csv));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "time_cycles,live_bytes");
  uint64_t peak = 0, last_time = 0, rows = 0;
  while (std::getline(lines, line)) {
    const size_t comma = line.find(',');
    ASSERT_NE(comma, std::string::npos) << line;
    const uint64_t time = std::stoull(line.substr(0, comma));
    EXPECT_GE(time, last_time);
    last_time = time;
    peak = std::max<uint64_t>(peak, std::stoull(line.substr(comma + 1)));
    ++rows;
  }
  EXPECT_GT(rows, 2u);
  const isa::Executable exe = isa::load_executable(options.executable);
  EXPECT_EQ(peak, top::planned_peak(exe));
  // The persistent region (below the arena) plus the planner's live maximum of the arena;
  // the arena itself reaches that maximum when the planner meets its lower bound (mlp), and
  // exceeds it otherwise (lenet5: 247 KiB for 229 KiB live).
  EXPECT_EQ(peak, exe.plan.arena_base + exe.plan.lower_bound);
  EXPECT_LE(peak, exe.plan.arena_base + exe.plan.arena_size);
  if (GetParam() == "mlp") {
    EXPECT_EQ(peak, exe.plan.arena_base + exe.plan.arena_size);
  }
  EXPECT_NE(out.str().find("memory peak"), std::string::npos);
}

TEST_P(RunProgram, OverlappingMemoryPeakStaysWithinTheAllocation) {
  // With a decode window a later instruction's tensors become live before an earlier one's
  // die, so the live peak may pass the program-order figure; live tensors never share an
  // address, so it never passes what the plan allocates. The summary names both figures.
  RunCommandOptions options;
  options.executable = compiled(GetParam());
  options.config = base_config();
  options.window = 64;
  std::ostringstream out;
  ASSERT_EQ(run_simulation(options, out), 0);
  const isa::Executable exe = isa::load_executable(options.executable);
  const report::RunResult r = simulate_file(options.executable);
  EXPECT_GE(r.memory_peak, exe.plan.arena_base);
  EXPECT_LE(r.memory_peak, exe.plan.arena_base + exe.plan.arena_size);
  EXPECT_EQ(r.planned_peak, top::planned_peak(exe));
  const std::string allocated =
      "allocated " + std::to_string(exe.plan.arena_base + exe.plan.arena_size) + " B";
  EXPECT_NE(out.str().find(allocated), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(std::to_string(r.planned_peak) + " B live in program order"),
            std::string::npos)
      << out.str();
}

TEST_P(RunProgram, JsonReportAndTraceParse) {
  const std::string report = temp_dir() + "/" + GetParam() + ".report.json";
  const std::string trace = temp_dir() + "/" + GetParam() + ".trace.json";
  RunCommandOptions options;
  options.executable = compiled(GetParam());
  options.config = base_config();
  options.report = report;
  options.trace = trace;
  options.layers = true;
  std::ostringstream out;
  ASSERT_EQ(run_simulation(options, out), 0);
  const report::RunResult direct = simulate_file(options.executable);
  EXPECT_NE(out.str().find("total cycles       " + std::to_string(direct.total_cycles)),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("Per layer"), std::string::npos);
  // Both files parse as JSON, and say what the simulation found.
  const nlohmann::json r = nlohmann::json::parse(slurp(report));
  const nlohmann::json events = nlohmann::json::parse(slurp(trace))["traceEvents"];
  const nlohmann::json& ins = r["instructions"];
  for (const nlohmann::json& i : ins) {
    EXPECT_GE(i["cycles"].get<uint64_t>(), i["roofline_cycles"].get<uint64_t>());
    EXPECT_EQ(i["end_cycle"].get<uint64_t>() - i["start_cycle"].get<uint64_t>(),
              i["cycles"].get<uint64_t>());
    // PE instructions give the sequencer's split and what fill and drain leave of the array.
    if (i["unit"] == "pe") {
      ASSERT_TRUE(i["block"].is_array()) << i;
      const uint64_t m = i["block"][0], n = i["block"][1], k = i["block"][2];
      EXPECT_GE(m * n * k, 1u) << i;
      const uint64_t macs = i["macs"], pe_cycles = i["pe_cycles"];
      EXPECT_LE(pe_cycles, i["compute_cycles"].get<uint64_t>()) << i;
      const double efficiency = i["pe_efficiency"];
      EXPECT_DOUBLE_EQ(efficiency,
                       static_cast<double>(macs) / (32.0 * 32.0 * static_cast<double>(pe_cycles)))
          << i;
      EXPECT_GT(efficiency, 0.0) << i;
      EXPECT_LE(efficiency, 1.0) << i;
    } else {
      EXPECT_TRUE(i["block"].is_null()) << i;
      EXPECT_EQ(i["pe_cycles"].get<uint64_t>(), 0u) << i;
    }
  }
  const uint64_t total = r["total_cycles"], count = ins.size(),
                 pe_busy = r["units"]["pe"]["busy_cycles"], read = r["dram"]["bytes_read"],
                 peak = r["memory"]["peak_bytes"];
  uint64_t spans = 0, trace_peak = 0;
  std::set<int> track_ids;
  bool has_bandwidth = false;
  for (const nlohmann::json& e : events) {
    if (e["ph"] == "X") {
      ++spans;
      track_ids.insert(e["tid"].get<int>());
    }
    if (e["ph"] == "C" && e["name"] == "dram_bandwidth_GBps") has_bandwidth = true;
    if (e["ph"] == "C" && e["name"] == "live_dram_bytes")
      trace_peak = std::max(trace_peak, e["args"]["bytes"].get<uint64_t>());
  }
  const uint64_t tracks = track_ids.size();
  EXPECT_EQ(total, direct.total_cycles);
  EXPECT_EQ(count, direct.instructions.size());
  EXPECT_EQ(pe_busy, direct.unit(isa::Unit::Pe).busy_cycles);
  EXPECT_EQ(read, direct.dram.bytes_read);
  EXPECT_EQ(peak, direct.memory_peak);
  EXPECT_EQ(spans, direct.instructions.size());
  EXPECT_GE(tracks, 3u);  // control, pe, ppu (and dma when the program has DMA work)
  EXPECT_TRUE(has_bandwidth);
  EXPECT_EQ(trace_peak, direct.memory_peak);
}

INSTANTIATE_TEST_SUITE_P(Models, RunProgram, ::testing::Values("mlp", "lenet5"));

std::string thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

TEST(RunInputs, MalformedExecutableIsRejectedWithTheLoaderMessage) {
  const std::string bad = temp_dir() + "/bad.bin";
  {
    std::ofstream f(bad, std::ios::binary);
    std::ifstream good(compiled("mlp"), std::ios::binary);
    std::ostringstream whole;
    whole << good.rdbuf();
    std::string bytes = whole.str();
    bytes.resize(bytes.size() / 2);  // truncated
    f << bytes;
  }
  RunCommandOptions options;
  options.executable = bad;
  options.config = base_config();
  std::ostringstream out;
  const std::string expected = thrown([&] { isa::load_executable(bad); });
  EXPECT_NE(expected, "(no UserError)");
  EXPECT_EQ(thrown([&] { run_simulation(options, out); }), expected);
  EXPECT_TRUE(out.str().empty());  // nothing simulated
}

TEST(RunInputs, MalformedConfigIsRejectedWithTheLoaderMessage) {
  const std::string bad = temp_dir() + "/bad.yaml";
  {
    std::ofstream f(bad);
    f << "name: broken\nclock_mhz: [1, 2\n";
  }
  RunCommandOptions options;
  options.executable = compiled("mlp");
  options.config = bad;
  std::ostringstream out;
  const std::string expected = thrown([&] { target::load_target(bad); });
  EXPECT_NE(expected, "(no UserError)");
  EXPECT_EQ(thrown([&] { run_simulation(options, out); }), expected);
  EXPECT_TRUE(out.str().empty());
}

// Below the loader: two GEMMs that wait for each other, which the validator would reject.
TEST(RunDeadlock, CyclicDependenciesAreReportedNotHung) {
  const target::TargetDesc target = target::load_target(base_config());
  isa::Executable exe;
  exe.target = target.name;
  const auto f32 = [](uint64_t addr, std::vector<uint32_t> shape) {
    return isa::TensorDesc::contiguous(addr, isa::DType::F32, shape);
  };
  for (uint32_t k = 0; k < 3; ++k) {
    isa::Instruction gemm(isa::Opcode::Gemm);
    gemm.set_operand(isa::Slot::A, f32(0x0, {16, 16}));
    gemm.set_operand(isa::Slot::B, f32(0x1000, {16, 16}));
    gemm.set_operand(isa::Slot::Y, f32(0x2000 + 0x1000 * k, {16, 16}));
    exe.instructions.push_back(gemm);
  }
  exe.instructions[1].deps = {2};
  exe.instructions[2].deps = {1};
  exe.instructions.emplace_back(isa::Opcode::End);
  const report::RunResult r = top::simulate(exe, target);
  ASSERT_EQ(r.deadlock.size(), 3u);
  EXPECT_EQ(top::describe_stuck(r.deadlock),
            "instruction 1 waits for 2; instruction 2 waits for 1; instruction 3 waits behind a "
            "fence");
  // The free instruction ran, and the simulator is usable afterwards.
  EXPECT_GT(r.instructions[0].end_cycle, 0u);
  exe.instructions[1].deps.clear();
  exe.instructions[2].deps = {1};
  const report::RunResult fixed = top::simulate(exe, target);
  EXPECT_TRUE(fixed.deadlock.empty());
  EXPECT_GE(fixed.instructions[2].start_cycle, fixed.instructions[1].end_cycle);
  // 0 and 1 are independent and both on the PE array: they serialise there.
  EXPECT_GE(fixed.instructions[1].start_cycle, fixed.instructions[0].end_cycle);
}

}  // namespace
}  // namespace s2::sim
