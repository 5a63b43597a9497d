// The output guard and writer of every tool (isa/container/output_guard.h, writer.h): each
// kind of output recognised by its first bytes, the refusals, and the temporary file beside
// the output that never replaces an existing file.
#include "isa/container/output_guard.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "isa/common/errors.h"
#include "isa/container/writer.h"

namespace s2::isa {
namespace {

namespace fs = std::filesystem;

class OutputGuard : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("s2guard_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static std::string refusal(const std::string& path, FileKind kind,
                             const std::vector<std::string>& inputs, bool force) {
    try {
      guard_output(path, kind, inputs, force);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(OutputGuard, EveryKindIsRecognisedByItsFirstBytes) {
  EXPECT_EQ(existing_kind(file("a.bin", std::string("S2TRAIN\0", 8) + "rest")),
            FileKind::Executable);
  EXPECT_EQ(existing_kind(file("a.json", "  \n{\"a\": 1}")), FileKind::Json);
  EXPECT_EQ(existing_kind(file("b.json", "[1, 2]")), FileKind::Json);
  EXPECT_EQ(existing_kind(file("m.csv", "time_cycles,live_bytes\n0,1\n")), FileKind::Csv);
  EXPECT_EQ(existing_kind(file("a.npy", "\x93NUMPY\x01\x00")), FileKind::Npy);
  EXPECT_EQ(existing_kind(file("g.txt", "// after import\n\ngraph mlp\n  %x: f32[1]\n")),
            FileKind::IrText);
  EXPECT_EQ(existing_kind(file("isa.md", "# S2Train ISA reference\n")), FileKind::IsaDoc);
  for (const char* other : {"keep me", "pe_array:\n  rows: 32\n", "graphics\n", "# notes\n"})
    EXPECT_EQ(existing_kind(file("o.txt", other)), std::nullopt) << other;
  EXPECT_EQ(existing_kind((dir_ / "absent").string()), std::nullopt);
}

TEST_F(OutputGuard, RefusesInputsDirectoriesAndFilesOfAnotherKind) {
  const std::string cfg = file("cfg.yaml", "pe_array:\n  rows: 32\n");
  const std::string respelt = (dir_ / "." / "cfg.yaml").string();
  EXPECT_EQ(refusal(respelt, FileKind::Json, {cfg}, true),
            respelt + ": is an input of this run (" + cfg +
                "); refusing to overwrite it with the output");
  EXPECT_EQ(refusal(dir_.string(), FileKind::Json, {}, true),
            dir_.string() + ": is a directory; the output is a JSON file");
  EXPECT_EQ(refusal(cfg, FileKind::Json, {}, false),
            cfg +
                ": exists and is not a file this tool writes, not a JSON file; refusing to "
                "overwrite it (pass --force to replace it)");
  const std::string json = file("r.json", "{}");
  EXPECT_EQ(refusal(json, FileKind::Csv, {}, false),
            json +
                ": exists and is a JSON file, not a memory-trace CSV file; refusing to "
                "overwrite it (pass --force to replace it)");
  // Allowed: a new file, an empty one, one of the same kind, anything with force.
  EXPECT_EQ(refusal((dir_ / "new.json").string(), FileKind::Json, {cfg}, false), "");
  EXPECT_EQ(refusal(file("empty", ""), FileKind::Npy, {}, false), "");
  EXPECT_EQ(refusal(json, FileKind::Json, {cfg, ""}, false), "");
  EXPECT_EQ(refusal(cfg, FileKind::Json, {}, true), "");
}

TEST_F(OutputGuard, WriteGoesThroughAFreshTemporaryFile) {
  const std::string out = file("out.bin", "old");
  const std::string tmp = file("out.bin.tmp", "unrelated");
  write_file(out, {'n', 'e', 'w'});
  EXPECT_EQ(read(out), "new");
  EXPECT_EQ(read(tmp), "unrelated");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  }
  EXPECT_EQ(files, 2u);
  // A directory that does not exist: an error naming the output, nothing left behind.
  const std::string missing = (dir_ / "no" / "out.bin").string();
  try {
    write_file(missing, {'x'});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot write: No such file or directory");
  }
}

}  // namespace
}  // namespace s2::isa
