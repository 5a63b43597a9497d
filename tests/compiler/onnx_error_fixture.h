#pragma once
// The fixture of the importer's tests: imports a model written to a per-test file and returns
// the UserError message, which always starts with that file (error_of), or the verified graph
// (imported).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/ir/verifier.h"
#include "compiler/onnx/onnx_import.h"
#include "isa/common/errors.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import::testing {

class OnnxImportError : public ::testing::Test {
 protected:
  // The UserError message of importing `path`, or a failure.
  static std::string error_of(const std::string& path, const OnnxImportOptions& options = {}) {
    try {
      import_onnx(path, options);
    } catch (const UserError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no UserError importing " << path;
    return "";
  }
  std::string error_of(const TestModel& m, const OnnxImportOptions& options = {}) {
    m.write(path_);
    return error_of(path_, options);
  }
  // The graph of `m`, expected to pass the verifier.
  ir::Graph imported(const TestModel& m) {
    m.write(path_);
    ir::Graph g = import_onnx(path_, {});
    EXPECT_EQ(ir::verify_graph(g), std::vector<std::string>{});
    return g;
  }
  // `problem` prefixed with the file, as every message is.
  std::string at_file(const std::string& problem) const { return path_ + ": " + problem; }

  TempDir dir_;
  const std::string path_ = dir_.file("model.onnx");
};

}  // namespace s2::onnx_import::testing
