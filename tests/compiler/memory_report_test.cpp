// The memory-plan report (compiler/memory/memory_report.h) parses back as JSON with every
// field it promises, and scripts/plot_memory.py draws it or rejects a bad file.

#include "compiler/memory/memory_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/run_command.h"
#include "compiler/memory/planner.h"
#include "compiler/memory/synthetic.h"
#include "isa/common/errors.h"

namespace s2::memory {
namespace {

using isa::TensorRole;

// A strict little JSON reader, enough to prove the report is well-formed: any syntax error,
// trailing text or duplicate key fails the test.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  std::string text;               // a string's value, or a number's literal
  std::vector<Json> items;        // an array's elements, or an object's values
  std::vector<std::string> keys;  // an object's keys, in order

  bool has(const std::string& key) const {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  }
  const Json& operator[](const std::string& key) const {
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) throw std::runtime_error("no key '" + key + "'");
    return items[static_cast<size_t>(it - keys.begin())];
  }
  uint64_t u64() const {
    if (kind != Number || text.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error("'" + text + "' is not an unsigned integer");
    return std::stoull(text);
  }
  double number() const {
    if (kind != Number) throw std::runtime_error("not a number");
    return std::stod(text);
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}

  Json document() {
    Json v = value();
    skip_space();
    if (i_ != s_.size()) fail("trailing text");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON offset " + std::to_string(i_) + ": " + what);
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  char peek() {
    skip_space();
    if (i_ >= s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool literal(const std::string& word) {
    if (s_.compare(i_, word.size(), word) != 0) return false;
    i_ += word.size();
    return true;
  }

  Json value() {
    Json v;
    const char c = peek();
    if (c == '{' || c == '[') {
      const bool object = c == '{';
      const char close = object ? '}' : ']';
      v.kind = object ? Json::Object : Json::Array;
      ++i_;
      bool more = peek() != close;
      while (more) {
        if (object) {
          const std::string key = string_literal();
          if (v.has(key)) fail("duplicate key " + key);
          v.keys.push_back(key);
          expect(':');
        }
        v.items.push_back(value());
        more = peek() == ',';
        if (more) ++i_;
      }
      expect(close);
    } else if (c == '"') {
      v.kind = Json::String;
      v.text = string_literal();
    } else if (literal("true")) {
      v.kind = Json::Bool;
      v.boolean = true;
    } else if (literal("false")) {
      v.kind = Json::Bool;
    } else if (literal("null")) {
      v.kind = Json::Null;
    } else {
      v.kind = Json::Number;
      const size_t start = i_;
      while (i_ < s_.size() && std::string("+-.eE0123456789").find(s_[i_]) != std::string::npos)
        ++i_;
      v.text = s_.substr(start, i_ - start);
      if (v.text.empty()) fail("unexpected character");
      size_t used = 0;
      std::stod(v.text, &used);
      if (used != v.text.size()) fail("bad number " + v.text);
    }
    return v;
  }

  std::string string_literal() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = s_.at(i_++);
      if (e == 'u') {
        out += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16));  // ASCII only here
        i_ += 4;
      } else if (e == '"' || e == '\\' || e == '/') {
        out += e;
      } else {
        fail(std::string("unexpected escape \\") + e);
      }
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

Json parse(const std::string& text) {
  return JsonReader(text).document();
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
  EXPECT_EQ(r["planner"].text, "greedy");
  EXPECT_EQ(r["alignment"].u64(), 64u);
  EXPECT_EQ(r["steps"].u64(), 6u);
  EXPECT_EQ(r["persistent_bytes"].u64(), 192u);
  EXPECT_EQ(r["arena_base"].u64(), plan.arena_base);
  EXPECT_EQ(r["arena_size"].u64(), plan.arena_size);
  EXPECT_EQ(r["dram_size"].u64(), plan.dram_size);
  EXPECT_EQ(r["lower_bound"].u64(), 1024u + 1024u + 128u);
  EXPECT_DOUBLE_EQ(r["ratio"].number(), plan.ratio());

  ASSERT_EQ(r["tensors"].items.size(), buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Json& t = r["tensors"].items[i];
    EXPECT_EQ(t["name"].text, buffers[i].name);
    EXPECT_EQ(t["role"].text, isa::role_name(buffers[i].role));
    EXPECT_EQ(t["size"].u64(), buffers[i].size);
    EXPECT_EQ(t["first"].u64(), buffers[i].first);
    EXPECT_EQ(t["last"].u64(), buffers[i].last);
    EXPECT_EQ(t["persistent"].boolean, buffers[i].persistent);
    EXPECT_EQ(t["address"].u64(), plan.address[i]);
  }
  const Json& totals = r["totals"];
  EXPECT_EQ(totals.keys.size(), 6u);
  EXPECT_EQ(totals["activation"]["count"].u64(), 1u);
  EXPECT_EQ(totals["activation"]["bytes"].u64(), 1000u);
  EXPECT_EQ(totals["weight_gradient"]["bytes"].u64(), 100u);
  EXPECT_EQ(totals["scratch"]["count"].u64(), 1u);
  EXPECT_EQ(totals["scratch"]["bytes"].u64(), 0u);
  EXPECT_FALSE(totals.has("label"));
}

TEST(MemoryReport, EmptyPlanIsValidJson) {
  const Json r = parse(memory_report_json({}, plan_memory({}, PlanOptions{})));
  EXPECT_EQ(r["tensors"].items.size(), 0u);
  EXPECT_EQ(r["totals"].keys.size(), 0u);
  EXPECT_EQ(r["ratio"].number(), 1.0);
  EXPECT_EQ(r["steps"].u64(), 0u);
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
    EXPECT_NE(std::string(e.what()).find("cannot write '" + bad + "'"), std::string::npos)
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
  EXPECT_FALSE(std::filesystem::exists(dir_ / "plan.png"));
}

}  // namespace
}  // namespace s2::memory
