// Every numeric key of an accelerator configuration does something (issue 13): for each
// numeric key written in configs/s2train_base.yaml or its DRAM preset, a configuration with
// only that key changed must change the simulated cycles or another documented field of the
// JSON report of some program. A key no model reads would let an architect sweep it and see
// identical results.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../common/run_command.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "simulator/dram/load_target.h"
#include "simulator/report/json_report.h"
#include "simulator/run/run_program.h"

namespace s2::sim {
namespace {

namespace fs = std::filesystem;

const fs::path& temp_dir() {
  static const fs::path dir = [] {
    char tmpl[] = "/tmp/s2_config_sensitivity_XXXXXX";
    const fs::path d = mkdtemp(tmpl);
    fs::create_directory_symlink(fs::path(S2_SOURCE_DIR) / "configs" / "dram", d / "dram");
    fs::create_directory_symlink(fs::path(S2_SOURCE_DIR) / "configs" / "tech", d / "tech");
    fs::create_directory_symlink(fs::path(S2_SOURCE_DIR) / "configs" / "host_link",
                                 d / "host_link");
    return d;
  }();
  return dir;
}

const fs::path kBase = fs::path(S2_SOURCE_DIR) / "configs" / "s2train_base.yaml";

// The programs the keys are tried on: a conv net with batch norm and pooling, an MLP, and the
// golden assembly program that uses every opcode (so every PPU op's cost is exercised).
const std::vector<isa::Executable>& programs() {
  static const std::vector<isa::Executable> exes = [] {
    std::vector<isa::Executable> out;
    const fs::path golden = temp_dir() / "all_opcodes.bin";
    const auto a = s2::test::run_command(
        std::string(S2C_PATH) + " asm " +
        s2::test::shell_quoted(std::string(S2_SOURCE_DIR) + "/tests/isa/golden/all_opcodes.s2asm") +
        " -o " + s2::test::shell_quoted(golden.string()));
    EXPECT_EQ(a.status, 0) << a.out;
    out.push_back(isa::load_executable(golden.string()));
    for (const char* model : {"resnet18 --batch 2", "lenet5 --batch 2"}) {
      const fs::path bin = temp_dir() / (std::string(model).substr(0, 6) + ".bin");
      const auto r = s2::test::run_command(std::string(S2C_PATH) + " compile " + model + " -o " +
                                           s2::test::shell_quoted(bin.string()));
      EXPECT_EQ(r.status, 0) << r.out;
      out.push_back(isa::load_executable(bin.string()));
    }
    return out;
  }();
  return exes;
}

// What a configuration does to the programs: their JSON reports.
std::string observe(const target::TargetDesc& target) {
  std::string all;
  for (const isa::Executable& exe : programs()) {
    std::ostringstream report;
    report::write_json_report(run_program(exe, target, RunOptions{}).timing, report);
    all += report.str();
  }
  return all;
}

// The node at `path` below `root` (created when absent). yaml-cpp's Node::operator= writes
// through to the node, so descending rebinds with reset().
YAML::Node at(const YAML::Node& root, const std::vector<std::string>& path) {
  YAML::Node node = root;
  for (const std::string& key : path) {
    YAML::Node child = node[key];
    node.reset(child);
  }
  return node;
}

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream in(path);
  for (std::string part; std::getline(in, part, '.');)
    parts.push_back(part);
  return parts;
}

// A number with an optional unit ("256KiB", "0.5", "12480"), scaled; nullopt for text.
std::optional<std::string> scaled(const std::string& text, double factor, double offset) {
  size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  if (end == 0) return std::nullopt;
  const std::string unit = text.substr(end);
  if (!unit.empty() && unit != "KiB" && unit != "MiB" && unit != "GiB" && unit != "B")
    return std::nullopt;
  const double value = std::stod(text.substr(0, end)) * factor + offset;
  if (value <= 0) return std::nullopt;
  std::ostringstream out;
  out << value << unit;
  return out.str();
}

TEST(ConfigSensitivity, EveryNumericKeyChangesCyclesOrAReportField) {
  const target::TargetDesc base = target::load_target(kBase.string());
  const std::string baseline = observe(base);
  const YAML::Node config = YAML::LoadFile(kBase.string());
  std::vector<std::string> ignored, tried;
  for (const auto& [path, where] : base.locations) {
    const std::vector<std::string> keys = split(path);
    // The value as written, in the config or (for DRAM keys it leaves to the preset) the preset.
    const YAML::Node written = where.file == kBase.string()
                                   ? at(YAML::Clone(config), keys)
                                   : at(YAML::LoadFile(where.file), {keys.begin() + 1, keys.end()});
    if (!written.IsScalar()) continue;
    bool changed_something = false, loaded_any = false;
    for (const auto& [factor, offset] :
         {std::pair{2.0, 0.0}, {0.5, 0.0}, {1.0, 1.0}, {1.0, -1.0}}) {
      const std::optional<std::string> value = scaled(written.Scalar(), factor, offset);
      if (!value) break;  // not a number: not this test's business
      YAML::Node changed = YAML::Clone(config);
      at(changed, keys) = *value;
      const fs::path file = temp_dir() / "changed.yaml";
      std::ofstream(file) << YAML::Dump(changed) << "\n";
      std::optional<target::TargetDesc> target;
      try {
        target = target::load_target(file.string());
      } catch (const UserError&) {
        continue;  // out of range or against a JEDEC relation: try another value
      }
      loaded_any = true;
      try {
        changed_something = observe(*target) != baseline;
      } catch (const UserError&) {
        changed_something = true;  // the programs no longer fit: that is an effect too
      }
      if (changed_something) break;
    }
    if (!loaded_any) continue;
    tried.push_back(path);
    if (!changed_something) ignored.push_back(path + " = " + written.Scalar());
  }
  EXPECT_GT(tried.size(), 40u);
  std::string list;
  for (const std::string& key : ignored)
    list += "\n  " + key;
  EXPECT_TRUE(ignored.empty()) << ignored.size() << " of " << tried.size()
                               << " numeric keys change nothing the simulator reports:" << list;
}

}  // namespace
}  // namespace s2::sim
