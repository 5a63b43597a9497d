// The memory-plan report (compiler/memory/memory_report.h) parses back as JSON with every
// field it promises, and scripts/plot_memory.py draws it or rejects a bad file.

#include "compiler/memory/memory_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../common/run_command.h"
#include "compiler/memory/planner.h"
#include "compiler/memory/synthetic.h"
#include "isa/common/errors.h"
#include "isa/common/json.h"

namespace s2::memory {
namespace {

using isa::TensorRole;

using Json = nlohmann::json;

// nlohmann's parser is strict: any syntax error or trailing text throws.
Json parse(const std::string& text) {
  return Json::parse(text);
}

std::vector<Buffer> example() {
  return {{"w", TensorRole::Weight, 100, 0, 0, true},
          {"in\"put\\ \n\t\x01 é", TensorRole::Input, 12, 0, 0, true},
          {"conv.out", TensorRole::Activation, 1000, 0, 4, false},
          {"conv.grad", TensorRole::Gradient, 1000, 3, 4, false},
          {"w.grad", TensorRole::WeightGradient, 100, 4, 5, false},
          {"tmp", TensorRole::Scratch, 0, 2, 2, false}};
}

TEST(MemoryReport, ContainsEveryTensorTheTotalsAndThePlanSummary) {
  const std::vector<Buffer> buffers = example();
  const MemoryPlan plan = plan_memory(buffers, PlanOptions{});
  const Json r = parse(memory_report_json(buffers, plan));
  EXPECT_EQ(r["planner"].get<std::string>(), "greedy");
  EXPECT_EQ(r["alignment"].get<uint64_t>(), 64u);
  EXPECT_EQ(r["steps"].get<uint64_t>(), 6u);
  EXPECT_EQ(r["persistent_bytes"].get<uint64_t>(), 192u);
  EXPECT_EQ(r["arena_base"].get<uint64_t>(), plan.arena_base);
  EXPECT_EQ(r["arena_size"].get<uint64_t>(), plan.arena_size);
  EXPECT_EQ(r["dram_size"].get<uint64_t>(), plan.dram_size);
  EXPECT_EQ(r["lower_bound"].get<uint64_t>(), 1024u + 1024u + 128u);
  EXPECT_DOUBLE_EQ(r["ratio"].get<double>(), plan.ratio());

  ASSERT_EQ(r["tensors"].size(), buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Json& t = r["tensors"][i];
    EXPECT_EQ(t["name"].get<std::string>(), buffers[i].name);
    EXPECT_EQ(t["role"].get<std::string>(), isa::role_name(buffers[i].role));
    EXPECT_EQ(t["size"].get<uint64_t>(), buffers[i].size);
    EXPECT_EQ(t["first"].get<uint64_t>(), buffers[i].first);
    EXPECT_EQ(t["last"].get<uint64_t>(), buffers[i].last);
    EXPECT_EQ(t["persistent"].get<bool>(), buffers[i].persistent);
    EXPECT_EQ(t["address"].get<uint64_t>(), plan.address[i]);
  }
  const Json& totals = r["totals"];
  EXPECT_EQ(totals.size(), 6u);
  EXPECT_EQ(totals["activation"]["count"].get<uint64_t>(), 1u);
  EXPECT_EQ(totals["activation"]["bytes"].get<uint64_t>(), 1000u);
  EXPECT_EQ(totals["weight_gradient"]["bytes"].get<uint64_t>(), 100u);
  EXPECT_EQ(totals["scratch"]["count"].get<uint64_t>(), 1u);
  EXPECT_EQ(totals["scratch"]["bytes"].get<uint64_t>(), 0u);
  EXPECT_FALSE(totals.contains("label"));
}

TEST(MemoryReport, EmptyPlanIsValidJson) {
  const Json r = parse(memory_report_json({}, plan_memory({}, PlanOptions{})));
  EXPECT_EQ(r["tensors"].size(), 0u);
  EXPECT_EQ(r["totals"].size(), 0u);
  EXPECT_EQ(r["ratio"].get<double>(), 1.0);
  EXPECT_EQ(r["steps"].get<uint64_t>(), 0u);
}

TEST(MemoryReport, APlanOfOtherBuffersIsAnInternalError) {
  EXPECT_THROW(memory_report_json(example(), MemoryPlan{}), InternalError);
}

TEST(MemoryReport, WritesTheFileOrNamesItInAUserError) {
  const std::vector<Buffer> buffers = example();
  const MemoryPlan plan = plan_memory(buffers, PlanOptions{});
  const auto path = std::filesystem::temp_directory_path() /
                    ("s2_memory_report_" + std::to_string(::getpid()) + ".json");
  write_memory_report(path.string(), buffers, plan);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  EXPECT_EQ(text.str(), memory_report_json(buffers, plan));

  const std::string bad = "/nonexistent-dir/plan.json";
  try {
    write_memory_report(bad, buffers, plan);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--memory-report: " + bad + ": cannot write"),
              std::string::npos)
        << e.what();
  }
}

// scripts/plot_memory.py, with Debian's interpreter and python3-matplotlib.
class PlotMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test::run_command(kPython + " -c 'import matplotlib'").status != 0)
      GTEST_SKIP() << kPython << " cannot import matplotlib (Debian's python3-matplotlib)";
    dir_ =
        std::filesystem::temp_directory_path() / ("s2_plot_memory_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  test::CommandResult plot(const std::string& report, const std::string& flags = "") const {
    return test::run_command(kPython + " " + test::shell_quoted(kScript) + " " +
                             test::shell_quoted(report) + " -o " +
                             test::shell_quoted((dir_ / "plan.png").string()) + " " + flags);
  }

  const std::string kPython = "/usr/bin/python3";
  const std::string kScript = std::string(S2_SOURCE_DIR) + "/scripts/plot_memory.py";
  std::filesystem::path dir_;
};

TEST_F(PlotMemory, DrawsAPlan) {
  const std::vector<Buffer> buffers = resnet_like_buffers(ResNetLike{});
  const std::string report =
      write("plan.json", memory_report_json(buffers, plan_memory(buffers, PlanOptions{})));
  for (const std::string flags : {"", "--persistent"}) {
    std::filesystem::remove(dir_ / "plan.png");
    const test::CommandResult r = plot(report, flags);
    ASSERT_EQ(r.status, 0) << r.out;
    std::ifstream png(dir_ / "plan.png", std::ios::binary);
    std::string magic(8, '\0');
    png.read(magic.data(), 8);
    EXPECT_EQ(magic, "\x89PNG\r\n\x1a\n") << flags;
  }
}

// Under a memory budget an activation has a host-memory slot between its two DRAM parts
// (compiler/schedule/fit_budget.h): the report says which space each buffer is in, and the
// picture draws the swapped activation apart and counts it.
TEST_F(PlotMemory, DrawsSwappedActivationsApart) {
  std::vector<Buffer> buffers = {{"a", TensorRole::Activation, 4096, 0, 2, false},
                                 {"b", TensorRole::Activation, 4096, 1, 8, false},
                                 {"a.swap_out", TensorRole::Activation, 4096, 2, 7, false},
                                 {"a.swap_in", TensorRole::Activation, 4096, 7, 9, false},
                                 {"c.recompute", TensorRole::Activation, 4096, 9, 9, false}};
  buffers[2].space = isa::MemSpace::Host;
  const MemoryPlan plan = plan_memory(buffers, PlanOptions{});
  EXPECT_EQ(plan.host_size, 4096u);
  EXPECT_EQ(plan.address[2], 0u) << "host memory has its own addresses";
  EXPECT_LE(plan.arena_size, 2u * 4096u) << "the host slot takes no DRAM: a.swap_in reuses a's";
  const Json json = parse(memory_report_json(buffers, plan));
  EXPECT_EQ(json["host_size"], 4096u);
  EXPECT_EQ(json["tensors"][2]["space"], "host");
  EXPECT_EQ(json["tensors"][3]["space"], "dram");
  const test::CommandResult r = plot(write("swap.json", json.dump()));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(5 tensors, 1 swapped to host memory, 1 recomputed buffer(s))"),
            std::string::npos)
      << r.out;
}

TEST_F(PlotMemory, RejectsAMissingOrBadFile) {
  const std::string missing = (dir_ / "missing.json").string();
  test::CommandResult r = plot(missing);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cannot read " + missing), std::string::npos) << r.out;

  r = plot(write("broken.json", "{\"planner\": "));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("broken.json:1:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not valid JSON"), std::string::npos) << r.out;

  r = plot(write("other.json", "{\"planner\": \"greedy\"}"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("not a memory report (missing alignment"), std::string::npos) << r.out;

  // Binary (an executable given for the report): a message, not a UnicodeDecodeError.
  r = plot(write("step.bin", std::string("S2TRAIN\0\x02\0\0\0\x10\xe0\x01", 15)));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("step.bin: not a memory report (byte 13 is not UTF-8 text"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("Traceback"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "plan.png"));
}

}  // namespace
}  // namespace s2::memory
