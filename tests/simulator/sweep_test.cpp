// The sweep's parts that need no simulation: constraint expressions, the spec reader and its
// errors, point enumeration, the configuration of a point, CSV and the Pareto front.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "isa/common/errors.h"
#include "isa/target/target_values.h"
#include "simulator/dram/load_target.h"
#include "simulator/sweep/expression.h"
#include "simulator/sweep/points.h"
#include "simulator/sweep/results.h"
#include "simulator/sweep/sweep_spec.h"

namespace s2::sim::sweep {
namespace {
namespace fs = std::filesystem;

ExprValue eval(const std::string& text) {
  return Expression::parse(text).evaluate([](const std::string& name) -> std::optional<ExprValue> {
    if (name == "sram.input.size") return 262144.0;
    if (name == "pe_array.rows") return 32.0;
    if (name == "dram.preset") return std::string("DDR4-3200");
    return std::nullopt;
  });
}

double number(const std::string& text) {
  return std::get<double>(eval(text));
}

TEST(SweepExpression, ArithmeticComparisonsAndUnits) {
  EXPECT_EQ(number("1 + 2 * 3"), 7);
  EXPECT_EQ(number("(1 + 2) * 3"), 9);
  EXPECT_EQ(number("-2 - -3"), 1);
  EXPECT_EQ(number("1MiB"), 1048576);
  EXPECT_EQ(number("64 KiB / 2"), 32768);
  EXPECT_EQ(number("1.5e3"), 1500);
  EXPECT_EQ(number("sram.input.size + 256KiB <= 512KiB"), 1);
  EXPECT_EQ(number("sram.input.size + 256KiB < 512KiB"), 0);
  EXPECT_EQ(number("pe_array.rows * pe_array.rows >= 1024 && dram.preset == \"DDR4-3200\""), 1);
  EXPECT_EQ(number("!(pe_array.rows > 16) || dram.preset != \"HBM2\""), 1);
  EXPECT_EQ(number("0 && sram.unknown"), 0);  // short-circuit: the right side is not read
  EXPECT_EQ(Expression::parse("a.b + c * a.b").names(), (std::vector<std::string>{"a.b", "c"}));
}

size_t error_column(const std::string& text) {
  try {
    eval(text);
  } catch (const ExpressionError& e) {
    return e.column;
  }
  return 0;
}

TEST(SweepExpression, ErrorsNameTheColumn) {
  EXPECT_EQ(error_column("1 +"), 4u);
  EXPECT_EQ(error_column("(1 + 2"), 7u);
  EXPECT_EQ(error_column("1 < 2 < 3"), 7u);  // comparisons do not chain
  EXPECT_EQ(error_column("pe_array.rows + sram.nope"), 17u);
  EXPECT_EQ(error_column("dram.preset + 1"), 13u);
  EXPECT_EQ(error_column("\"abc\" == 1"), 7u);
  EXPECT_EQ(error_column("2 / (1 - 1)"), 3u);
  EXPECT_EQ(error_column("4x"), 2u);  // not a unit
  EXPECT_THROW(truthy(eval("dram.preset"), 1), ExpressionError);
}

std::string repeated(const std::string& part, size_t times) {
  std::string out;
  for (size_t i = 0; i < times; ++i)
    out += part;
  return out;
}

// An expression nests at most 256 levels: deeper is an error at the column where it goes too
// deep, not a stack overflow (each of these crashed the sweep at 200000 levels).
TEST(SweepExpression, NestingDeeperThan256LevelsIsAnError) {
  const auto parens = [](size_t n) { return repeated("(", n) + "1" + repeated(")", n); };
  EXPECT_EQ(number(parens(256)), 1);
  EXPECT_EQ(error_column(parens(257)), 257u);  // the parenthesis that opens level 257
  // A chain of operators is a level per operator: (((1 + 1) + 1) + ...).
  const auto chain = [](size_t terms) { return "1" + repeated(" + 1", terms - 1); };
  EXPECT_EQ(number(chain(256)), 256);
  EXPECT_EQ(error_column(chain(257)), 4u * 256 - 1);  // the 256th "+"
  EXPECT_EQ(number(repeated("-", 254) + "1"), 1);
  EXPECT_NE(error_column(repeated("-", 256) + "1"), 0u);
  EXPECT_NE(error_column(repeated("!", 256) + "0"), 0u);
  for (const std::string& deep :
       {parens(200000), repeated("-", 200000) + "1", repeated("!", 200000) + "1", chain(200000)}) {
    try {
      Expression::parse(deep);
      ADD_FAILURE() << "parsed an expression " << deep.size() << " characters deep";
    } catch (const ExpressionError& e) {
      EXPECT_NE(e.problem.find("nests more than 256 levels deep"), std::string::npos) << e.problem;
    }
  }
}

TEST(SweepResults, ParetoFrontOfAHandMadeTable) {
  // (latency, area): b and d dominate a and c; e ties d and stays; f is best in latency alone.
  const std::vector<std::vector<double>> table{
      {10, 5},  // a: dominated by b
      {8, 5},   // b
      {9, 9},   // c: dominated by b and d
      {9, 3},   // d
      {9, 3},   // e: equal to d, neither dominates
      {2, 20},  // f
  };
  EXPECT_EQ(pareto_front(table), (std::vector<size_t>{1, 3, 4, 5}));
  EXPECT_EQ(pareto_front({}), std::vector<size_t>{});
}

TEST(SweepResults, FrontsArePerWorkloadAndSkipFailedRows) {
  std::vector<Json> rows;
  auto row = [&](int r, const char* workload, const char* status, double ms, double area) {
    Json j;
    j["row"] = r;
    j["workload"] = workload;
    j["status"] = status;
    j["ms"] = ms;
    j["area"] = area;
    rows.push_back(j);
  };
  row(0, "a", "ok", 5, 5);
  row(1, "a", "ok", 4, 4);
  row(2, "b", "ok", 9, 9);  // alone on b's front, though a's rows dominate it
  row(3, "a", "failed", 1, 1);
  const auto front = pareto_rows(rows, {"ms", "area"});
  ASSERT_EQ(front.size(), 2u);
  EXPECT_EQ((*front[0])["row"], 1);
  EXPECT_EQ((*front[1])["row"], 2);
}

TEST(SweepResults, CsvQuotesWhatNeedsIt) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"x\"\nnext"), "\"say \"\"x\"\"\nnext\"");
  Json row;
  row["a"] = 1;
  row["b"] = 0.25;
  row["c"] = nullptr;
  row["d"] = "x,y";
  EXPECT_EQ(csv_line(row, {"a", "b", "c", "d", "missing"}), "1,0.25,,\"x,y\",\n");
}

class SweepSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("s2_sweep_spec_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& text) {
    const fs::path path = dir_ / "spec.yaml";
    std::ofstream(path) << "base: " << base() << "\n" << text;
    return path.string();
  }
  static std::string base() { return std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml"; }
  SweepSpec load(const std::string& text) { return load_sweep_spec(write(text), base()); }
  std::string error(const std::string& text) {
    try {
      load(text);
    } catch (const UserError& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

const char* kWorkload = "workloads:\n  - model: mlp\n";

TEST_F(SweepSpecTest, ReadsAxesRangesAndWorkloads) {
  const SweepSpec spec =
      load(std::string("axes:\n"
                       "  - key: [pe_array.rows, pe_array.cols]\n"
                       "    values: [16, [32, 16]]\n"
                       "  - key: sram.input.size\n"
                       "    geometric: {from: 64KiB, to: 256KiB, factor: 2}\n"
                       "  - key: clock_mhz\n"
                       "    linear: {from: 500, to: 1000, step: 250}\n"
                       "objectives: [ms, pe_array.macs]\n") +
           "workloads:\n  - model: mlp\n    options: --batch 8\n"
           "  - model: resnet18\n    name: r18\n    options: [--fuse-attention]\n");
  ASSERT_EQ(spec.axes.size(), 3u);
  EXPECT_EQ(spec.axes[0].values,
            (std::vector<std::vector<std::string>>{{"16", "16"}, {"32", "16"}}));
  EXPECT_EQ(spec.axes[1].values,
            (std::vector<std::vector<std::string>>{{"65536"}, {"131072"}, {"262144"}}));
  EXPECT_EQ(spec.axes[2].values,
            (std::vector<std::vector<std::string>>{{"500"}, {"750"}, {"1000"}}));
  ASSERT_EQ(spec.workloads.size(), 2u);
  EXPECT_EQ(spec.workloads[0].options, (std::vector<std::string>{"--batch", "8"}));
  EXPECT_EQ(spec.workloads[1].name, "r18");
  EXPECT_TRUE(spec.workloads[1].fuse_attention);
  EXPECT_EQ(combination_count(spec), 18u);
}

TEST_F(SweepSpecTest, MistakesNameTheFileLineAndKey) {
  const std::string file = (dir_ / "spec.yaml").string();
  // Line 1 is the base.
  EXPECT_EQ(error(std::string("axes:\n  - key: pe_array.colz\n    values: [16]\n") + kWorkload)
                .rfind(file + ":4: axes[0].values[0]: the base configuration", 0),
            0u);
  EXPECT_NE(error(std::string("axes:\n  - key: pe_array.colz\n    values: [16]\n") + kWorkload)
                .find("unknown key"),
            std::string::npos);
  EXPECT_EQ(error(std::string("axes:\n  - key: pe_array.rows\n    values: [16, 0]\n") + kWorkload)
                .rfind(file + ":4: axes[0].values[1]:", 0),
            0u);
  EXPECT_EQ(error(std::string("axes:\n  - key: pe_array.rows\n") + kWorkload),
            file + ":3: axes[0].values: missing: give values, linear or geometric");
  EXPECT_EQ(error(std::string("axes:\n  - key: [pe_array.rows, pe_array.cols]\n"
                              "    values: [[16, 16, 16]]\n") +
                  kWorkload),
            file + ":4: axes[0].values[0]: gives 3 values for the 2 keys of the axis");
  EXPECT_EQ(error(std::string("combine: zip\naxes:\n  - key: pe_array.rows\n    values: [16, 32]\n"
                              "  - key: pe_array.cols\n    values: [16]\n") +
                  kWorkload),
            file +
                ":6: axes[1]: has 1 values, but axes[0] has 2: zipped axes must be equally "
                "long");
  // A repeated value (or zipped point) would simulate the same configuration twice; zipped
  // axes may repeat a value of one axis.
  EXPECT_EQ(error(std::string("axes:\n  - key: pe_array.rows\n    values: [16, 32,\n"
                              "             16]\n") +
                  kWorkload),
            file +
                ":5: axes[0].values[2]: repeats values[0]; every point with it would be "
                "simulated twice");
  EXPECT_EQ(error(std::string("axes:\n  - key: [pe_array.rows, pe_array.cols]\n"
                              "    values: [16, [16, 32], [16, 16]]\n") +
                  kWorkload),
            file +
                ":4: axes[0].values[2]: repeats values[0]; every point with it would be "
                "simulated twice");
  EXPECT_EQ(error(std::string("combine: zip\naxes:\n  - key: pe_array.rows\n"
                              "    values: [16, 16, 16]\n  - key: pe_array.cols\n"
                              "    values: [16, 32, 16]\n") +
                  kWorkload),
            file +
                ":5: axes[0].values[2]: with the other zipped axes, repeats point 0 "
                "(values[0] of each); it would be simulated twice");
  EXPECT_EQ(error(std::string("combine: zip\naxes:\n  - key: pe_array.rows\n"
                              "    values: [16, 16]\n  - key: pe_array.cols\n"
                              "    values: [16, 32]\n") +
                  kWorkload),
            "no error");
  EXPECT_EQ(error(std::string("samples: 3\n") + kWorkload),
            file + ":2: samples: applies to combine: random");
  EXPECT_EQ(error(std::string("constraints:\n  - sram.inptu.size <= 1MiB\n") + kWorkload),
            file +
                ":3: constraints[0]: unknown name \"sram.inptu.size\" at column 1; did you "
                "mean \"sram.input.size\"? in \"sram.inptu.size <= 1MiB\"");
  EXPECT_EQ(error("workloads:\n  - model: missing.onnx\n"),
            file + ":3: workloads[0].model: no file " + (dir_ / "missing.onnx").string());
  EXPECT_EQ(error("workloads:\n  - model: mlp\n    options: --batch 2 -o x.bin\n"),
            file +
                ":4: workloads[0].options: -o is set by the sweep (each compile's "
                "configuration and output)");
  EXPECT_EQ(error("workloads:\n  - model: mlp\n  - model: mlp\n"),
            file +
                ":4: workloads[1]: a second workload named \"mlp\"; give each a distinct "
                "name");
  EXPECT_EQ(error(std::string("objectives: [latency]\n") + kWorkload)
                .rfind(file + ":2: objectives[0]: \"latency\" is neither a metric", 0),
            0u);
  EXPECT_EQ(error(std::string("axes:\n  - key: pe_array.rows\n    valeus: [1]\n") + kWorkload),
            file + ":3: axes[0].values: missing: give values, linear or geometric");
  EXPECT_EQ(error("workloads: []\n"), file + ":2: workloads: lists no workload");
  EXPECT_EQ(error(std::string("axes:\n  - key: [pe_array.rows, pe_array.rows]\n"
                              "    values: [16]\n") +
                  kWorkload),
            file + ":3: axes[0].key: pe_array.rows is listed twice");
  EXPECT_EQ(
      error(std::string("combin: zip\n") + kWorkload).rfind(file + ":2: combin: unknown key", 0),
      0u);
}

TEST_F(SweepSpecTest, GridZipAndSeededRandomPoints) {
  const std::string axes =
      "axes:\n  - key: pe_array.rows\n    values: [8, 16, 32]\n"
      "  - key: pe_array.cols\n    values: [8, 16, 32]\n";
  const SweepSpec grid = load(axes + kWorkload);
  const std::vector<Point> g = enumerate_points(grid);
  ASSERT_EQ(g.size(), 9u);
  EXPECT_EQ(g[1].choice, (std::vector<size_t>{0, 1}));  // the last axis varies fastest
  EXPECT_EQ(g[3].choice, (std::vector<size_t>{1, 0}));

  const std::vector<Point> z = enumerate_points(load("combine: zip\n" + axes + kWorkload));
  ASSERT_EQ(z.size(), 3u);
  EXPECT_EQ(z[2].choice, (std::vector<size_t>{2, 2}));

  const SweepSpec random = load("combine: random\nsamples: 4\nseed: 7\n" + axes + kWorkload);
  const std::vector<Point> r1 = enumerate_points(random);
  const std::vector<Point> r2 = enumerate_points(random);
  ASSERT_EQ(r1.size(), 4u);
  std::set<std::vector<size_t>> distinct;
  for (size_t i = 0; i < r1.size(); ++i) {
    EXPECT_EQ(r1[i].choice, r2[i].choice);
    EXPECT_EQ(r1[i].index, i);
    distinct.insert(r1[i].choice);
  }
  EXPECT_EQ(distinct.size(), 4u);
  const SweepSpec other = load("combine: random\nsamples: 4\nseed: 8\n" + axes + kWorkload);
  bool differs = false;
  for (size_t i = 0; i < 4; ++i)
    differs = differs || enumerate_points(other)[i].choice != r1[i].choice;
  EXPECT_TRUE(differs);
  EXPECT_EQ(enumerate_points(load("combine: random\nsamples: 50\n" + axes + kWorkload)).size(), 9u);
}

// Issue 19 point 4: each axis value is loaded (a millisecond or two) only if a point uses it.
// With random sampling that is the drawn points' values: a refused value fails the spec when
// a drawn point uses it and not otherwise, and a range of thousands of values sampled twice
// costs two loads (a 4-line spec of 16320 values took 27 s before its first point when every
// value was loaded).
TEST_F(SweepSpecTest, RandomSamplingLoadsOnlyTheDrawnValues) {
  const std::string file = (dir_ / "spec.yaml").string();
  const auto spec_text = [](const std::string& second, int seed) {
    return "combine: random\nsamples: 1\nseed: " + std::to_string(seed) +
           "\naxes:\n  - key: pe_array.rows\n    values: [16, " + second + ", 32]\n" + kWorkload;
  };
  int drawn = 0, not_drawn = 0;
  for (int seed = 1; seed <= 12; ++seed) {
    const std::vector<Point> points = enumerate_points(load(spec_text("24", seed)));
    ASSERT_EQ(points.size(), 1u);
    if (points[0].choice[0] == 1) {
      ++drawn;
      EXPECT_EQ(error(spec_text("0", seed)).rfind(file + ":7: axes[0].values[1]: the base", 0), 0u)
          << "seed " << seed;
    } else {
      ++not_drawn;
      EXPECT_EQ(error(spec_text("0", seed)), "no error") << "seed " << seed;
    }
  }
  EXPECT_GT(drawn, 0);
  EXPECT_GT(not_drawn, 0);
  // A grid uses every value: the refused one fails the spec whatever the seed.
  EXPECT_EQ(
      error("axes:\n  - key: pe_array.rows\n    values: [16, 0, 32]\n" + std::string(kWorkload))
          .rfind(file + ":4: axes[0].values[1]: the base", 0),
      0u);
  const SweepSpec range = load(
      "combine: random\nsamples: 2\naxes:\n  - key: clock_mhz\n"
      "    linear: {from: 100, to: 16419, step: 1}\n" +
      std::string(kWorkload));
  EXPECT_EQ(range.axes[0].values.size(), 16320u);
  EXPECT_EQ(enumerate_points(range).size(), 2u);
}

TEST_F(SweepSpecTest, APointsConfigurationIsTheBaseWithItsValues) {
  const SweepSpec spec =
      load(std::string("axes:\n  - key: [dram.preset, dram.channels, dram.capacity]\n"
                       "    values: [[HBM2, 8, 4GiB]]\n"
                       "  - key: dram.controller.scheduler\n    values: [fcfs]\n") +
           kWorkload);
  const Point p = enumerate_points(spec).at(0);
  const std::string text =
      configured_text(YAML::LoadFile(base()), point_settings(spec, p), "point 0\nsecond line");
  EXPECT_EQ(text.rfind("# point 0\n# second line\n", 0), 0u);
  const target::TargetDesc t =
      target::parse_target(text, "point.yaml", std::string(S2_SOURCE_DIR) + "/configs/dram");
  EXPECT_EQ(t.dram.preset, "HBM2");
  EXPECT_EQ(t.dram.channels, 8u);
  EXPECT_EQ(t.dram.capacity_bytes, uint64_t{4} << 30);
  EXPECT_EQ(t.dram.controller.scheduler, target::DramScheduler::Fcfs);  // a new mapping
  EXPECT_EQ(t.pe_array.rows, 32u);                                      // the rest is the base's
  EXPECT_THROW(configured_text(YAML::LoadFile(base()), {{"clock_mhz.x", "1"}}, ""), UserError);
}

// A multiply mode's rate is a key like any other: an axis sets it, a constraint reads it.
TEST_F(SweepSpecTest, DatatypeRatesAreAxesAndValues) {
  const SweepSpec spec = load(
      std::string("axes:\n  - key: pe_array.datatypes.bf16\n    values: [2, 8]\n") + kWorkload);
  const Point p = enumerate_points(spec).at(1);
  const std::string text = configured_text(YAML::LoadFile(base()), point_settings(spec, p), "");
  const target::TargetDesc t =
      target::parse_target(text, "point.yaml", std::string(S2_SOURCE_DIR) + "/configs/dram");
  EXPECT_EQ(t.pe_array.macs_per_pe(isa::DType::BF16), 8u);
  bool found = false;
  for (const target::NamedTargetValue& v : target::target_values(t))
    if (v.path == "pe_array.datatypes.bf16") found = std::get<double>(v.value) == 8.0;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace s2::sim::sweep
