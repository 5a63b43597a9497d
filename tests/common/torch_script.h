#pragma once
// What the tests that run scripts/torch_reference.py share: whether Debian's PyTorch is there,
// reading a file whole, and the worst error the script reports.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_command.h"

namespace s2::test {

inline const std::string kPython = "/usr/bin/python3";

// True when /usr/bin/python3 imports torch, torchvision and numpy (checked once).
inline bool torch_available() {
  static const bool ok =
      run_command(kPython + " -c 'import torch, torchvision, numpy'").status == 0;
  return ok;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The number after "worst relative error: " in the script's output, or -1.
inline double worst_error(const std::string& out) {
  const std::string key = "worst relative error: ";
  const size_t at = out.rfind(key);
  return at == std::string::npos ? -1.0 : std::stod(out.substr(at + key.size()));
}

// From the script's "against the float64 step: PyTorch's float32 step is within A (...), ours
// within B (...)" line (printed with --fp64-floor or --exact-factor): the worst distance from
// PyTorch's float64 step over the step's tensors, of PyTorch's float32 step (A) and of ours
// (B); both -1 when the line is missing.
struct Fp64Distances {
  double torch32 = -1.0;
  double ours = -1.0;
};

inline Fp64Distances fp64_distances(const std::string& out) {
  Fp64Distances d;
  const std::string line = "against the float64 step: PyTorch's float32 step is within ";
  const size_t at = out.rfind(line);
  if (at == std::string::npos) return d;
  const std::string ours = ", ours within ";
  const size_t at_ours = out.find(ours, at);
  if (at_ours == std::string::npos) return d;
  d.torch32 = std::stod(out.substr(at + line.size()));
  d.ours = std::stod(out.substr(at_ours + ours.size()));
  return d;
}

// The script's output (run with --exact-factor) shows our step within
// max(1e-4, factor x PyTorch fp32's distance) of PyTorch's float64 step.
inline void expect_as_accurate_as_torch(const std::string& out, double factor) {
  const Fp64Distances d = fp64_distances(out);
  ASSERT_GT(d.torch32, 0.0) << out;
  EXPECT_GE(d.ours, 0.0) << out;
  EXPECT_LE(d.ours, std::max(1e-4, factor * d.torch32)) << out;
}

}  // namespace s2::test
