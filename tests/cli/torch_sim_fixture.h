#pragma once
// What the PyTorch cross-checks share (torch_sim_test.cpp: the CNNs and the cross-check script
// itself; torch_sim_transformer_test.cpp: the language models and ViT;
// torch_sim_precision_test.cpp: bf16 and fp16): the programs' paths and the TorchSim fixture.
// The checks follow DESIGN.md's validation ladder, steps 4 and 5 on the same run: s2c compiles
// a model with fusion and the search planner, s2sim runs it in functional mode with the
// shadow-memory checker and dumps every tensor with a manifest
// (simulator/report/dump_manifest.h), and scripts/torch_reference.py recomputes the step with
// torch and torchvision from the executable's initial data and compares loss, weight gradients
// and updated weights and running statistics.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "../common/run_command.h"
#include "../common/torch_script.h"

namespace s2::test::torch_sim {

using s2::test::kPython;
using s2::test::read_text;
using s2::test::shell_quoted;
using s2::test::torch_available;
using s2::test::worst_error;

namespace fs = std::filesystem;

using Result = s2::test::CommandResult;
inline const auto& run = s2::test::run_command;

inline const std::string kS2c = shell_quoted(S2C_PATH);
inline const std::string kS2sim = shell_quoted(S2SIM_PATH);
inline const std::string kScript =
    shell_quoted(std::string(S2_SOURCE_DIR) + "/scripts/torch_reference.py");

class TorchSim : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("s2torchsim_" +
            std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string dump_dir() const { return (dir_ / "dump").string(); }

  // Compiles `model` with fusion (the default) and the search planner, runs it functionally
  // with the checker and dumps everything; expects a clean run.
  void compile_and_dump(const std::string& model, int batch, const std::string& run_flags = "") {
    const std::string bin = (dir_ / (model + ".bin")).string();
    Result r = run(kS2c + " compile " + model + " --batch " + std::to_string(batch) +
                   " --planner search -o " + shell_quoted(bin));
    ASSERT_EQ(r.status, 0) << r.out;
    r = run(kS2sim + " run " + shell_quoted(bin) + " --functional --check --dump-all " +
            shell_quoted(dump_dir()) + " " + run_flags);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("check              no findings"), std::string::npos) << r.out;
  }

  // Exports torchvision's `model` for training at `batch`, 32x32 (scripts/export_onnx.py); a
  // language model (gpt) at its preset's sequence length.
  std::string export_onnx(const std::string& model, int batch) const {
    const std::string onnx = (dir_ / (model + ".onnx")).string();
    const Result r =
        run(kPython + " " + shell_quoted(std::string(S2_SOURCE_DIR) + "/scripts/export_onnx.py") +
            " " + model + " --batch " + std::to_string(batch) +
            (model == "gpt" ? "" : " --image 32") + " --mode train -o " + shell_quoted(onnx));
    EXPECT_EQ(r.status, 0) << r.out;
    return onnx;
  }

  Result cross_check(const std::string& flags = "") const {
    return run(kPython + " " + kScript + " " + shell_quoted(dump_dir()) + " " + flags);
  }

  // Without flags every tensor is within 1e-4 of PyTorch's float32 step; with flags (e.g.
  // --exact-factor) the script's own verdict decides.
  // `model`: a zoo model or an ONNX file; `name`: the model the script recognises (default
  // `model`).
  void expect_matches_torch(const std::string& model, int batch, const std::string& flags = "",
                            const std::string& name = "") {
    if (!torch_available())
      GTEST_SKIP() << kPython << " cannot import torch, torchvision and numpy (Debian packages "
                   << "python3-torch, python3-torchvision, python3-numpy): cross-check skipped";
    ASSERT_NO_FATAL_FAILURE(compile_and_dump(model, batch));
    const Result r = cross_check(flags);
    last_out_ = r.out;
    EXPECT_EQ(r.status, 0) << r.out;
    const double worst = worst_error(r.out);
    EXPECT_GE(worst, 0.0) << r.out;
    if (flags.empty()) {
      EXPECT_LT(worst, 1e-4) << r.out;
    }
    const std::string shown = name.empty() ? model : name;
    EXPECT_NE(r.out.find(shown + ": batch " + std::to_string(batch) +
                         ", 3x32x32, 10 classes, "
                         "simulator dump"),
              std::string::npos)
        << r.out;
    const size_t summary = r.out.rfind("decisions:");  // the last lines, for the log
    if (summary != std::string::npos) std::cout << shown << ": " << r.out.substr(summary);
  }

  // The tiny GPT-2 at batch 4 (the zoo's `gpt` or its ONNX export): every tensor within 1e-4
  // of PyTorch's float32 step and as close to the float64 step as PyTorch's own.
  void expect_tiny_gpt_matches_torch(const std::string& model) {
    ASSERT_NO_FATAL_FAILURE(compile_and_dump(model, 4));
    const Result r = cross_check("--exact-factor 2");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_LT(worst_error(r.out), 1e-4) << r.out;
    EXPECT_NE(r.out.find("gpt: batch 4, 2 layers, 4 heads, width 64, 32 tokens, vocabulary 128, "
                         "simulator dump"),
              std::string::npos)
        << r.out;
    s2::test::expect_as_accurate_as_torch(r.out, 2.0);
  }

  fs::path dir_;
  std::string last_out_;  // the script's output in expect_matches_torch
};

}  // namespace s2::test::torch_sim
