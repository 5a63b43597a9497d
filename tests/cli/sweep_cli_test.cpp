// `s2sim sweep` end to end: results, resuming, refusing another spec's directory, and a sweep
// killed with SIGKILL and rerun (no row lost or duplicated; the same rows as an uninterrupted
// run).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../common/run_command.h"

namespace {
namespace fs = std::filesystem;
using s2::test::run_command;
using s2::test::shell_quoted;

const std::string kS2sim = shell_quoted(S2SIM_PATH);
const std::string kS2c = shell_quoted(S2C_PATH);
const std::string kBase = std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

class Sweep : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("s2sweep_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A spec of mlp over the array's rows and the DRAM capacity (16 MiB is too little for the
  // batch-512 step: those rows fail) and one refused combination (rows 3 with 1 GiB of
  // LPDDR4 is fine; output_stationary on 7 rows is fine too): the rows of every kind.
  std::string spec(const std::string& name, const std::string& extra = "") {
    const fs::path path = dir_ / name;
    std::ofstream(path) << "base: " << kBase << "\n"
                        << "axes:\n"
                        << "  - key: pe_array.rows\n    values: [8, 16, 32]\n"
                        << "  - key: dram.capacity\n    values: [12MiB, 1GiB]\n"
                        << "constraints:\n  - pe_array.rows != 8 || dram.capacity > 12MiB\n"
                        << "workloads:\n  - model: mlp\n    options: --batch 512\n"
                        << "  - model: mlp\n    name: mlp_b8\n    options: [--batch, '8']\n"
                        << "objectives: [ms, pe_array.rows]\n"
                        << extra;
    return path.string();
  }
  std::string sweep(const std::string& spec_path, const std::string& out,
                    const std::string& flags = "-j 2") {
    return kS2sim + " sweep " + shell_quoted(spec_path) + " -o " + shell_quoted(out) + " " + flags +
           " --s2c " + kS2c;
  }

  fs::path dir_;
};

TEST_F(Sweep, RunsEveryRowResumesAndRefusesAnotherSpec) {
  const std::string s = spec("spec.yaml");
  const std::string out = (dir_ / "out").string();
  const auto first = run_command(sweep(s, out));
  ASSERT_EQ(first.status, 0) << first.out;
  // 6 points, one excluded (rows 8 with 12 MiB); 5 x 2 workloads = 10 rows.
  EXPECT_NE(first.out.find("6 points x 2 workload(s); 10 rows: "), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("1 point(s) excluded"), std::string::npos) << first.out;
  const std::vector<std::string> csv = lines(read_text(fs::path(out) / "results.csv"));
  ASSERT_EQ(csv.size(), 11u);
  EXPECT_EQ(csv[0],
            "row,point,workload,pe_array.rows,dram.capacity,status,cycles,ms,pe_utilization,"
            "ppu_utilization,dram_bytes,dram_gbps,peak_memory,roofline_ratio,energy_mj,power_w,"
            "area_mm2,error");
  EXPECT_EQ(csv[1].rfind("2,1,mlp,8,1073741824,ok,", 0), 0u) << csv[1];
  size_t failed = 0;
  for (const std::string& line : csv)
    if (line.find(",failed,") != std::string::npos) {
      ++failed;
      EXPECT_NE(line.find("exceeds the 12582912 bytes of DRAM of this point"), std::string::npos)
          << line;
    }
  EXPECT_EQ(failed, 2u);  // batch 512 with 16 MiB on rows 16 and 32
  EXPECT_EQ(lines(read_text(fs::path(out) / "results.jsonl")).size(), 10u);
  EXPECT_TRUE(fs::exists(fs::path(out) / "configs" / "point-5.yaml"));
  EXPECT_EQ(read_text(fs::path(out) / "excluded.csv"),
            "point,constraint\n0,pe_array.rows != 8 || dram.capacity > 12MiB\n");
  // One compile per workload: s2c reads nothing these axes change.
  EXPECT_NE(first.out.find("; 2 compile(s)"), std::string::npos) << first.out;
  const std::vector<std::string> pareto = lines(read_text(fs::path(out) / "pareto.csv"));
  EXPECT_GE(pareto.size(), 3u);  // a front per workload

  // A rerun has nothing left to simulate and changes nothing.
  const std::string before = read_text(fs::path(out) / "results.csv");
  const auto again = run_command(sweep(s, out));
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_EQ(again.out.find("simulated"), std::string::npos) << again.out;
  EXPECT_EQ(read_text(fs::path(out) / "results.csv"), before);

  // Another spec in the same directory is refused, and nothing there changes.
  const std::string other = spec("other.yaml", "# another spec\n");
  const auto refused = run_command(sweep(other, out));
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_NE(refused.out.find("holds the results of another sweep"), std::string::npos)
      << refused.out;
  EXPECT_EQ(read_text(fs::path(out) / "results.csv"), before);

  // A directory that is not a sweep's is refused too.
  fs::create_directories(dir_ / "busy");
  std::ofstream(dir_ / "busy" / "notes.txt") << "mine\n";
  const auto busy = run_command(sweep(s, (dir_ / "busy").string()));
  EXPECT_EQ(busy.status, 1) << busy.out;
  EXPECT_NE(busy.out.find("not empty and holds no sweep"), std::string::npos) << busy.out;
}

TEST_F(Sweep, SpecMistakesAreUserErrorsWithTheirPlace) {
  const fs::path path = dir_ / "bad.yaml";
  std::ofstream(path) << "base: " << kBase << "\naxes:\n  - key: pe_array.rows\n"
                      << "    values: [16, -4]\nworkloads:\n  - model: mlp\n";
  const auto r = run_command(sweep(path.string(), (dir_ / "out").string()));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(path.string() + ":4: axes[0].values[1]: the base configuration"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  // A model s2c cannot compile is not the spec's mistake (s2c judges it): its rows fail, and
  // the run says why at once.
  const fs::path unknown = dir_ / "unknown.yaml";
  std::ofstream(unknown) << "base: " << kBase << "\nworkloads:\n  - model: nosuchmodel\n";
  const auto u = run_command(sweep(unknown.string(), (dir_ / "unknown").string()));
  EXPECT_EQ(u.status, 0) << u.out;
  EXPECT_NE(u.out.find("nosuchmodel: s2c compile failed (logs/nosuchmodel.p0.log): s2c: error: "
                       "unknown model 'nosuchmodel'"),
            std::string::npos)
      << u.out;
  EXPECT_NE(u.out.find("1 rows: 0 ok, 1 failed"), std::string::npos) << u.out;
  // An option s2c's flag parser refuses: the row says which, not the advice CLI11 ends with.
  const fs::path flag = dir_ / "flag.yaml";
  std::ofstream(flag) << "base: " << kBase << "\nworkloads:\n  - model: mlp\n"
                      << "    options: --batch 2 --input /nonexistent.npy\n";
  const auto f = run_command(sweep(flag.string(), (dir_ / "flag").string()));
  EXPECT_EQ(f.status, 0) << f.out;
  EXPECT_NE(f.out.find("mlp: s2c compile failed (logs/mlp.p0.log): --input: File does not exist: "
                       "/nonexistent.npy"),
            std::string::npos)
      << f.out;
}

// A constraint nested a few hundred thousand levels deep overflowed the parser's stack
// (exit 139); it is a user error at its line, quoted around the place, and nothing runs.
TEST_F(Sweep, ADeeplyNestedConstraintIsAUserErrorNotACrash) {
  const std::string deep = std::string(200000, '(') + "1" + std::string(200000, ')');
  std::string chain = "1";
  for (int i = 0; i < 200000; ++i)
    chain += " + 1";
  for (const std::string& expression : {deep + " > 0", std::string(200000, '-') + "1 < 0",
                                        std::string(200000, '!') + "0", chain + " > 0"}) {
    const fs::path path = dir_ / "deep.yaml";
    std::ofstream(path) << "base: " << kBase << "\nconstraints:\n  - \"" << expression
                        << "\"\nworkloads:\n  - model: mlp\n";
    const auto r = run_command(sweep(path.string(), (dir_ / "out").string()));
    EXPECT_EQ(r.status, 1) << r.out.substr(0, 2000);
    EXPECT_NE(r.out.find(path.string() + ":3: constraints[0]: the expression nests more than 256 "
                                         "levels deep"),
              std::string::npos)
        << r.out.substr(0, 2000);
    EXPECT_LT(r.out.size(), 1000u);  // the place, not the whole expression
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }
}

// SIGKILL in the middle, then a rerun: every row once, the same rows as a clean run; a torn
// last line (a kill inside the append) is dropped and its row run again.
TEST_F(Sweep, KilledAndRerunLosesAndDuplicatesNothing) {
  const std::string s = spec("spec.yaml");
  const std::string clean = (dir_ / "clean").string();
  ASSERT_EQ(run_command(sweep(s, clean)).status, 0);

  const std::string out = (dir_ / "killed").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    const std::string command = "exec " + sweep(s, out, "-j 1") + " > /dev/null 2>&1";
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  // Kill once some rows are in, before all are.
  const fs::path jsonl = fs::path(out) / "results.jsonl";
  for (int i = 0; i < 6000; ++i) {
    if (fs::exists(jsonl) && lines(read_text(jsonl)).size() >= 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(-pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const size_t kept = lines(read_text(jsonl)).size();
  EXPECT_GE(kept, 4u);
  EXPECT_LT(kept, 10u) << "the sweep ended before the kill";
  std::ofstream(jsonl, std::ios::app) << "{\"row\": 9, \"point\": 4, \"workl";  // torn

  const auto rerun = run_command(sweep(s, out));
  ASSERT_EQ(rerun.status, 0) << rerun.out;
  EXPECT_EQ(read_text(fs::path(out) / "results.csv"), read_text(fs::path(clean) / "results.csv"));
  EXPECT_EQ(read_text(jsonl), read_text(fs::path(clean) / "results.jsonl"));
  EXPECT_EQ(read_text(fs::path(out) / "pareto.csv"), read_text(fs::path(clean) / "pareto.csv"));
}

// Lines of results.jsonl that are not results of this sweep (edited, or another sweep's) are
// dropped and their rows run again: a row with a text where a metric goes was listed as done,
// its text in results.csv, and --collect listed rows beyond the sweep's (row 99, row -1). An
// excluded.csv line that names no point is an error at its line.
TEST_F(Sweep, LinesThatAreNotResultsOfTheSweepAreDropped) {
  const std::string s = spec("spec.yaml");
  const std::string clean = (dir_ / "clean").string(), out = (dir_ / "edited").string();
  ASSERT_EQ(run_command(sweep(s, clean)).status, 0);
  ASSERT_EQ(run_command(sweep(s, out)).status, 0);
  const fs::path jsonl = fs::path(out) / "results.jsonl";
  std::vector<std::string> rows = lines(read_text(jsonl));
  ASSERT_EQ(rows.size(), 10u);
  ASSERT_EQ(rows[0].rfind("{\"row\":2,", 0), 0u) << rows[0];
  const size_t cycles = rows[0].find("\"cycles\":");
  ASSERT_NE(cycles, std::string::npos);
  rows[0].replace(cycles, 9, "\"cycles\":\"x\",\"was\":");  // a text where a number goes
  const std::string b8 = "\"workload\":\"mlp_b8\"";
  const size_t workload = rows[1].find(b8);
  ASSERT_NE(workload, std::string::npos) << rows[1];
  rows[1].replace(workload, b8.size(), "\"workload\":\"mlp\"");  // another row's workload
  std::string foreign = rows[2];
  foreign.replace(0, foreign.find(','), "{\"row\":99");  // beyond the sweep's rows
  std::string text;
  for (const std::string& row : rows)
    text += row + "\n";
  std::ofstream(jsonl, std::ios::trunc) << text << foreign << "\n";
  const auto rerun = run_command(sweep(s, out));
  ASSERT_EQ(rerun.status, 0) << rerun.out;
  EXPECT_NE(rerun.out.find("dropped 3 line(s) that are not results of this sweep"),
            std::string::npos)
      << rerun.out;
  for (const char* file : {"results.csv", "results.jsonl", "pareto.csv"})
    EXPECT_EQ(read_text(fs::path(out) / file), read_text(fs::path(clean) / file)) << file;

  // --collect leaves them out and reports their rows missing.
  std::ofstream(jsonl, std::ios::trunc) << text << foreign << "\n";
  const auto collected = run_command(kS2sim + " sweep --collect " + shell_quoted(out));
  EXPECT_EQ(collected.status, 1) << collected.out;
  EXPECT_NE(collected.out.find("2 of the sweep's 10 rows have no result (rows 2, 3)"),
            std::string::npos)
      << collected.out;
  EXPECT_EQ(read_text(fs::path(out) / "results.csv").find("\n99,"), std::string::npos);
  // An excluded.csv naming no point of the sweep: its file and line (std::stoull threw out of
  // range: an internal error).
  std::ofstream(fs::path(out) / "excluded.csv", std::ios::app) << "99999999999999999999999,x\n";
  const auto excluded = run_command(kS2sim + " sweep --collect " + shell_quoted(out));
  EXPECT_EQ(excluded.status, 1) << excluded.out;
  EXPECT_NE(excluded.out.find("excluded.csv:3: not \"point,constraint\" with a point of this "
                              "sweep (0 to 5)"),
            std::string::npos)
      << excluded.out;
}

// Shards (what a Slurm array task runs) merged by --collect give the local run's files.
TEST_F(Sweep, ShardsCollectedEqualTheLocalRun) {
  const std::string s = spec("spec.yaml");
  const std::string local = (dir_ / "local").string(), out = (dir_ / "sharded").string();
  ASSERT_EQ(run_command(sweep(s, local)).status, 0);
  for (const char* shard : {"2/3", "0/3", "1/3"}) {
    const auto r = run_command(sweep(s, out, std::string("-j 1 --shard ") + shard));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("merge the shards with s2sim sweep --collect"), std::string::npos);
    if (std::string(shard) != "0/3") continue;
    // Collected before shard 1 has run: the files hold what there is, and the collect says
    // which rows are missing and fails (it exited 0, its files quietly short of them).
    const auto early = run_command(kS2sim + " sweep --collect " + shell_quoted(out));
    EXPECT_EQ(early.status, 1) << early.out;
    EXPECT_NE(early.out.find("3 of the sweep's 10 rows have no result (rows 4, 7, 10)"),
              std::string::npos)
        << early.out;
    EXPECT_NE(early.out.find("a shard has not run or not finished"), std::string::npos)
        << early.out;
  }
  const auto collected = run_command(kS2sim + " sweep --collect " + shell_quoted(out));
  ASSERT_EQ(collected.status, 0) << collected.out;
  EXPECT_NE(collected.out.find("from 3 shard(s)"), std::string::npos) << collected.out;
  for (const char* file : {"results.csv", "results.jsonl", "pareto.csv", "excluded.csv"})
    EXPECT_EQ(read_text(fs::path(out) / file), read_text(fs::path(local) / file)) << file;

  for (const char* bad :
       {"--shard 3/3", "--shard 1", "--shard a/b", "--tasks 2", "--shard 0/2 --slurm"}) {
    const auto r = run_command(sweep(s, (dir_ / "bad").string(), bad));
    EXPECT_EQ(r.status, 1) << bad << "\n" << r.out;
  }
  EXPECT_EQ(
      run_command(kS2sim + " sweep --collect " + shell_quoted((dir_ / "none").string())).status, 1);
}

// scripts/plot_sweep.py draws the PNGs from a sweep's directory (skipped without matplotlib).
TEST_F(Sweep, PlotScriptDrawsTheFrontAndTheAxes) {
  if (run_command("/usr/bin/python3 -c 'import matplotlib'").status != 0)
    GTEST_SKIP() << "/usr/bin/python3 cannot import matplotlib";
  const std::string out = (dir_ / "out").string();
  ASSERT_EQ(run_command(sweep(spec("spec.yaml"), out)).status, 0);
  const std::string script = shell_quoted(std::string(S2_SOURCE_DIR) + "/scripts/plot_sweep.py");
  const auto plot = run_command("/usr/bin/python3 " + script + " " + shell_quoted(out));
  ASSERT_EQ(plot.status, 0) << plot.out;
  for (const char* name : {"mlp-ms-vs-pe_array_rows.png", "mlp-axes.png",
                           "mlp_b8-ms-vs-pe_array_rows.png", "mlp_b8-axes.png"}) {
    const std::string png = read_text(fs::path(out) / "plots" / name);
    EXPECT_GT(png.size(), 1000u) << name;
    EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n") << name;
  }
  const auto missing =
      run_command("/usr/bin/python3 " + script + " " + shell_quoted((dir_ / "nothing").string()));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.out.find("sweep.json: cannot read"), std::string::npos) << missing.out;
  // Binary results (not UTF-8): a message naming the file, not a Python traceback.
  std::ofstream(fs::path(out) / "results.csv", std::ios::binary)
      << std::string("row\n\xe0\x01\n", 6);
  const auto binary = run_command("/usr/bin/python3 " + script + " " + shell_quoted(out));
  EXPECT_EQ(binary.status, 1) << binary.out;
  EXPECT_NE(binary.out.find("results.csv: not a sweep's results CSV"), std::string::npos)
      << binary.out;
  EXPECT_EQ(binary.out.find("Traceback"), std::string::npos) << binary.out;
}

}  // namespace
