// The simulator as a library (simulator/run/run_program.h): the same function `s2sim run`
// calls, driven directly, as the sweep driver and other tools will.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "../common/run_command.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "simulator/dram/load_target.h"
#include "simulator/functional/execute.h"
#include "simulator/run/run_program.h"

namespace s2::sim {
namespace {

struct Compiled {
  isa::Executable exe;
  target::TargetDesc target;
};

// lenet5 at batch 2, compiled once by s2c for the base configuration.
const Compiled& lenet5() {
  static const Compiled c = [] {
    char tmpl[] = "/tmp/s2_run_library_XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    const std::string config = std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml";
    const std::string bin = dir + "/lenet5.bin";
    const auto r = s2::test::run_command(std::string(S2C_PATH) + " compile lenet5 --batch 2 -o " +
                                         s2::test::shell_quoted(bin));
    EXPECT_EQ(r.status, 0) << r.out;
    return Compiled{isa::load_executable(bin), target::load_target(config)};
  }();
  return c;
}

class Recorder : public RunObserver {
 public:
  void timing_done(const report::RunResult& result) override {
    ++timing_calls;
    cycles = result.total_cycles;
  }
  void step_done(uint32_t step, std::optional<double> loss) override {
    steps.push_back(step);
    losses.push_back(loss.value_or(-1));
  }
  int timing_calls = 0;
  uint64_t cycles = 0;
  std::vector<uint32_t> steps;
  std::vector<double> losses;
};

TEST(RunLibrary, TimingOnlyComputesNothing) {
  Recorder seen;
  const RunOutput out = run_program(lenet5().exe, lenet5().target, RunOptions{}, &seen);
  EXPECT_GT(out.timing.total_cycles, 0u);
  EXPECT_EQ(out.timing.instructions.size(), lenet5().exe.instructions.size());
  EXPECT_FALSE(out.functional);
  EXPECT_FALSE(out.loss.has_value());
  EXPECT_FALSE(out.checked);
  EXPECT_EQ(seen.timing_calls, 1);
  EXPECT_EQ(seen.cycles, out.timing.total_cycles);
  EXPECT_TRUE(seen.steps.empty());
}

TEST(RunLibrary, CapturedTensorsAreTheProgramOrderResults) {
  const Compiled& c = lenet5();
  RunOptions options;
  options.check = true;
  for (size_t t = 0; t < c.exe.tensors.size(); ++t)
    options.capture.push_back(t);
  ASSERT_TRUE(options.functional());  // capturing implies computing
  Recorder seen;
  const RunOutput out = run_program(c.exe, c.target, options, &seen);
  ASSERT_TRUE(out.functional);
  ASSERT_TRUE(out.loss.has_value());
  EXPECT_EQ(seen.steps, std::vector<uint32_t>{1});
  EXPECT_EQ(seen.losses.front(), *out.loss);
  EXPECT_TRUE(out.checked);
  EXPECT_TRUE(out.findings.empty());
  // Tensors that live to the end of the step (weights, optimizer state) hold what program
  // order leaves: the simulated completion order computes the same bits.
  const functional::DramImage program_order =
      functional::execute_program(c.exe, c.target.pe_array.k_tile());
  const uint32_t last = static_cast<uint32_t>(c.exe.instructions.size() - 1);
  size_t compared = 0;
  for (size_t t = 0; t < c.exe.tensors.size(); ++t) {
    const isa::TensorEntry& e = c.exe.tensors[t];
    ASSERT_EQ(out.captured[t].size(), e.dense_bytes()) << e.name;
    if (e.last != last) continue;
    std::vector<uint8_t> expected = program_order.entry_bytes(e);
    expected.resize(static_cast<size_t>(e.dense_bytes()));
    EXPECT_EQ(out.captured[t], expected) << e.name;
    ++compared;
  }
  EXPECT_GT(compared, 8u);
}

TEST(RunLibrary, StepsCarryTheWeightsOver) {
  RunOptions options;
  options.steps = 3;
  Recorder seen;
  const RunOutput out = run_program(lenet5().exe, lenet5().target, options, &seen);
  ASSERT_EQ(seen.steps, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_NE(seen.losses[0], seen.losses[2]);  // the step trains
  EXPECT_EQ(*out.loss, seen.losses[2]);
  // The same run again gives the same numbers.
  Recorder again;
  run_program(lenet5().exe, lenet5().target, options, &again);
  EXPECT_EQ(again.losses, seen.losses);
}

TEST(RunLibrary, BadOptionsAreUserErrors) {
  RunOptions options;
  options.window = 0;
  EXPECT_THROW(run_program(lenet5().exe, lenet5().target, options), UserError);
  options = RunOptions{};
  options.vcd_prefix = "waves";
  EXPECT_THROW(run_program(lenet5().exe, lenet5().target, options), UserError);
}

}  // namespace
}  // namespace s2::sim
