#pragma once
// What the CLI tests share (cli_test.cpp, transformer_cli_test.cpp,
// mixed_precision_cli_test.cpp): the programs' paths, file helpers and the Cli fixture, which
// gives each test a fresh directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../common/run_command.h"

namespace s2::test::cli {
namespace fs = std::filesystem;

using Result = s2::test::CommandResult;
inline const auto& run = s2::test::run_command;

inline std::string quoted(const std::string& s) {
  return "'" + s + "'";
}
inline const std::string kS2c = quoted(S2C_PATH);
inline const std::string kS2sim = quoted(S2SIM_PATH);
inline const std::string kSource = S2_SOURCE_DIR;

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class Cli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("s2cli_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // The shipped DRAM presets, technology files and host links beside configurations the test
  // writes.
  void link_config_dirs() const {
    for (const char* sub : {"dram", "tech", "host_link"})
      if (!fs::exists(dir_ / sub))
        fs::create_directory_symlink(kSource + "/configs/" + sub, dir_ / sub);
  }

  // The example program (docs/examples/mlp_step.s2asm) assembled to `name` in the test's
  // directory; returns its path, or "" (and a failure) when `s2c asm` refuses it.
  std::string assembled_example(const std::string& name = "mlp.bin") const {
    const std::string bin = path(name);
    const Result r = run(kS2c + " asm " + quoted(kSource + "/docs/examples/mlp_step.s2asm") +
                         " -o " + quoted(bin));
    EXPECT_EQ(r.status, 0) << r.out;
    return r.status == 0 ? bin : "";
  }

  fs::path dir_;
};

// The data after a .npy header (both writers pad the header to 64 bytes).
inline std::string npy_data(const std::string& path) {
  const std::string bytes = read_text(path);
  const size_t end = bytes.find('\n');
  return end == std::string::npos ? "" : bytes.substr(end + 1);
}

}  // namespace s2::test::cli
