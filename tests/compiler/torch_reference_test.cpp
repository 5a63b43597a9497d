// One training step of zoo models on the reference interpreter against PyTorch (DESIGN.md
// validation ladder, step 4): compiler/driver/reference.h writes the step, and
// scripts/torch_reference.py recomputes it with torch and torchvision and compares.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "../common/run_command.h"
#include "../common/torch_script.h"
#include "compiler/driver/reference.h"
#include "compiler/io/npy.h"
#include "isa/common/errors.h"
#include "isa/common/json.h"

namespace s2::compiler {
namespace {

using s2::test::kPython;
using s2::test::read_text;
using s2::test::torch_available;
using s2::test::worst_error;

namespace fs = std::filesystem;

using Result = test::CommandResult;
const auto& run = test::run_command;

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

const std::string kScript = std::string(S2_SOURCE_DIR) + "/scripts/torch_reference.py";

zoo::ModelOptions model_options(int64_t batch, int64_t hw) {
  zoo::ModelOptions o;
  o.batch = batch;
  o.channels = 3;
  o.height = o.width = hw;
  o.classes = 10;
  return o;
}

class ReferenceStep : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("s2ref_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_step(const std::string& model, const zoo::ModelOptions& o) {
    ReferenceOptions options;
    options.model = model;
    options.model_options = o;
    options.out_dir = dir_.string();
    run_reference(options);
  }
  Result cross_check(const std::string& flags = "") const {
    return run(kPython + " " + quoted(kScript) + " " + quoted(dir_.string()) + " " + flags);
  }

  void expect_matches_torch(const std::string& model, const zoo::ModelOptions& o,
                            const std::string& flags = "") {
    if (!torch_available())
      GTEST_SKIP()
          << kPython << " cannot import torch, torchvision and numpy (Debian packages "
          << "python3-torch, python3-torchvision, python3-numpy): PyTorch cross-check skipped";
    write_step(model, o);
    const Result r = cross_check(flags);
    last_out_ = r.out;
    EXPECT_EQ(r.status, 0) << r.out;
    const double worst = worst_error(r.out);
    EXPECT_GE(worst, 0.0) << r.out;
    if (flags.empty()) {
      EXPECT_LT(worst, 1e-4) << r.out;
    }
    const size_t summary = r.out.rfind("decisions:");  // the last two lines, for the log
    if (summary != std::string::npos) std::cout << model << ": " << r.out.substr(summary);
  }

  fs::path dir_;
  std::string last_out_;  // the script's output in expect_matches_torch
};

// `s2c reference` takes an ONNX export as well: mobilenet_v3_small (hardswish, squeeze-
// excitation, dropout) exported by scripts/export_onnx.py; the manifest names the torchvision
// model's tensors, the dropout layer's mask is a decision and its step counter no state.
TEST_F(ReferenceStep, OnnxExportMatchesPyTorch) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  fs::create_directories(dir_);
  const std::string onnx = (dir_ / "mobilenet_v3_small.onnx").string();
  const Result e =
      run(kPython + " " + quoted(std::string(S2_SOURCE_DIR) + "/scripts/export_onnx.py") +
          " mobilenet_v3_small --batch 8 --image 32 --mode train -o " + quoted(onnx));
  ASSERT_EQ(e.status, 0) << e.out;
  ReferenceOptions options;
  options.model = onnx;
  options.out_dir = (dir_ / "step").string();
  run_reference(options);
  const Result r = run(kPython + " " + quoted(kScript) + " " + quoted(dir_.string() + "/step") +
                       " --exact-factor 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("mobilenet_v3_small: batch 8, 3x32x32, 10 classes, reference"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("decisions: 15 "), std::string::npos) << r.out;
}

TEST_F(ReferenceStep, MlpMatchesPyTorch) {
  expect_matches_torch("mlp", model_options(4, 32));
}

TEST_F(ReferenceStep, Lenet5MatchesPyTorch) {
  expect_matches_torch("lenet5", model_options(4, 32));
}

// Batch 8 against PyTorch's float32 step at 1e-4; batch 4 by accuracy, below. At 32x32
// resnet18's layer4 maps are 1x1, so each of its batch norms normalises only `batch` values
// per channel.
TEST_F(ReferenceStep, Resnet18MatchesPyTorch) {
  expect_matches_torch("resnet18", model_options(8, 32));
}

// With 4 values per channel the step is so ill-conditioned that two correct float32
// implementations differ by more than 1e-4: at this seed PyTorch's float32 step is 9.2e-5 from
// its float64 step and ours 1.2e-4, and ours is 1.5e-4 from PyTorch's float32 step
// (scripts/accuracy-sweep.sh: over seeds 1..12 PyTorch's float32 step is itself beyond 1e-4
// of float64 at 7 of them). So the step is judged against the float64 step: ours no
// further from it than twice PyTorch's float32 step (the largest ratio over those seeds is
// 1.9). A wrong gradient is orders of magnitude beyond that.
TEST_F(ReferenceStep, Resnet18Batch4IsAsAccurateAsPyTorch) {
  expect_matches_torch("resnet18", model_options(4, 32), "--exact-factor 2");
  test::expect_as_accurate_as_torch(last_out_, 2.0);
}

// The check has teeth: a 0.1% error in one updated tensor fails it.
TEST_F(ReferenceStep, CrossCheckCatchesAWrongUpdate) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  write_step("mlp", model_options(2, 8));
  const std::string path = (dir_ / "updated" / "fc2.bias.npy").string();
  io::NpyArray a = io::read_npy(path);
  for (float& v : a.data.f32())
    v *= 1.001f;
  io::write_npy(path, a.data, a.shape);
  const Result r = cross_check();
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("(updated/fc2.bias); 1 of"), std::string::npos) << r.out;
  // Judged by accuracy against the float64 step, the same error fails too.
  const Result exact = cross_check("--exact-factor 2");
  EXPECT_EQ(exact.status, 1) << exact.out;
  EXPECT_NE(exact.out.find("ours within 1.0"), std::string::npos) << exact.out;
  EXPECT_NE(exact.out.find("judged by accuracy: 1 of"), std::string::npos) << exact.out;
}

TEST_F(ReferenceStep, CrossCheckRejectsAnIncompleteStep) {
  if (!torch_available()) GTEST_SKIP() << kPython << " cannot import torch: skipped";
  write_step("lenet5", model_options(2, 16));
  fs::remove(dir_ / "grad" / "fc1.bias.npy");
  const Result r = cross_check();
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("grad/fc1.bias.npy: missing"), std::string::npos) << r.out;
  // A manifest that is not one: a message naming it, not a Python traceback.
  for (const std::string& text :
       {std::string("[1]"), std::string("{\"format\": "), std::string("\x93\xe0 binary", 9)}) {
    std::ofstream(dir_ / "manifest.json", std::ios::binary) << text;
    const Result bad = cross_check();
    EXPECT_EQ(bad.status, 1) << bad.out;
    EXPECT_NE(bad.out.find("manifest.json: not a manifest"), std::string::npos) << bad.out;
    EXPECT_EQ(bad.out.find("Traceback"), std::string::npos) << bad.out;
  }
}

TEST_F(ReferenceStep, WritesTheDocumentedFiles) {
  write_step("lenet5", model_options(2, 16));
  for (const char* file : {"manifest.json", "loss.npy", "init/input.npy", "init/labels.npy",
                           "init/conv1.weight.npy", "grad/conv1.weight.npy", "grad/fc3.bias.npy",
                           "updated/fc3.bias.npy", "decisions/relu1.npy", "decisions/pool2.npy"})
    EXPECT_TRUE(fs::is_regular_file(dir_ / file)) << file;
  EXPECT_EQ(io::read_npy((dir_ / "loss.npy").string()).shape, (ir::Shape{1}));
  EXPECT_EQ(io::read_npy((dir_ / "init/labels.npy").string()).data.dtype(), isa::DType::I32);
  EXPECT_EQ(io::read_npy((dir_ / "decisions/pool2.npy").string()).shape, (ir::Shape{2, 16, 1, 1}));
  const nlohmann::json manifest = nlohmann::json::parse(read_text(dir_ / "manifest.json"));
  EXPECT_EQ(manifest["model"], "lenet5");
  EXPECT_EQ(manifest["options"]["batch"], 2);
  EXPECT_EQ(manifest["options"]["height"], 16);
  EXPECT_EQ(manifest["optimizer"]["name"], "sgd");
  EXPECT_EQ(manifest["optimizer"]["lr"], 0.01);
  EXPECT_EQ(manifest["optimizer"]["momentum"], 0.9);
  EXPECT_EQ(manifest["optimizer"]["weight_decay"], 5e-4);
  const auto& weights = manifest["weights"];
  EXPECT_NE(std::find(weights.begin(), weights.end(), "fc3.bias"), weights.end()) << manifest;
  const nlohmann::json pool1 = {
      {"op", "pool1"}, {"type", "max_pool2d"}, {"file", "decisions/pool1.npy"}};
  const auto& decisions = manifest["decisions"];
  EXPECT_NE(std::find(decisions.begin(), decisions.end(), pool1), decisions.end()) << manifest;

  // The first SGD step with momentum: v = g + wd * w, w' = w - lr * v, each rounded to f32.
  auto f32 = [&](const std::string& f) { return io::read_npy((dir_ / f).string()).data.f32(); };
  const std::vector<float> w = f32("init/fc2.weight.npy");
  const std::vector<float> g = f32("grad/fc2.weight.npy");
  const std::vector<float> updated = f32("updated/fc2.weight.npy");
  ASSERT_EQ(w.size(), updated.size());
  const float lr = 0.01f, wd = 5e-4f;
  for (size_t i = 0; i < w.size(); ++i) {
    const float v = g[i] + wd * w[i];
    ASSERT_EQ(updated[i], w[i] - lr * v) << i;
  }
}

TEST_F(ReferenceStep, RejectsBadOptions) {
  ReferenceOptions o;
  o.model = "mlp";
  EXPECT_THROW(run_reference(o), UserError);  // no output directory
  o.out_dir = dir_.string();
  o.sgd.lr = -1.0;
  try {
    run_reference(o);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("learning rate -1 must be a finite number >= 0"),
              std::string::npos)
        << e.what();
  }
  o.sgd = ir::OptimizerOptions{};
  o.model = "alexnet";
  EXPECT_THROW(run_reference(o), UserError);
  o.model = "mlp";
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  o.out_dir = (dir_ / "file").string();
  try {
    run_reference(o);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create the output directory"), std::string::npos)
        << e.what();
  }
}

TEST(ImageSize, ParsesSquareAndRectangularSizes) {
  zoo::ModelOptions o;
  parse_image_size("64", &o);
  EXPECT_EQ(o.height, 64);
  EXPECT_EQ(o.width, 64);
  parse_image_size("224x112", &o);
  EXPECT_EQ(o.height, 224);
  EXPECT_EQ(o.width, 112);
  for (const char* bad : {"", "x", "32x", "x32", "0", "-4", "32x32x3", "3 2", "32X32", "1e3"}) {
    try {
      parse_image_size(bad, &o);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--image '") + bad +
                                           "': expected H or HxW with positive integers, e.g. 32 "
                                           "or 224x224");
    }
  }
}

}  // namespace
}  // namespace s2::compiler
