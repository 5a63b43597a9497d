#include "compiler/onnx/model_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "isa/common/errors.h"

namespace s2::onnx_import {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw UserError(path + ": " + problem);
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not an .onnx file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open the file: ") + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) fail(path, std::string("cannot read the file: ") + std::strerror(errno));
  return bytes.str();
}

}  // namespace

ModelFile load_model_file(const std::string& path) {
  ModelFile file;
  file.path = path;
  const std::string bytes = read_file(path);
  if (!file.model.ParseFromString(bytes))
    fail(path, "not an ONNX model (the file does not parse as an ONNX ModelProto protobuf)");
  // Protobuf parsing is lenient: short or unrelated files often parse as an empty or
  // nonsensical message. A real model always has these.
  if (file.model.ir_version() <= 0 || !file.model.has_graph())
    fail(path, "not an ONNX model (no IR version or no graph)");

  bool found = false;
  for (const onnx::OperatorSetIdProto& op_set : file.model.opset_import()) {
    if (op_set.domain().empty() || op_set.domain() == "ai.onnx") {
      file.opset = op_set.version();
      found = true;
    }
  }
  if (!found) fail(path, "the model imports no ai.onnx opset");
  if (file.opset < kMinOpset || file.opset > kMaxOpset)
    fail(path, "opset " + std::to_string(file.opset) + " is not supported (ai.onnx opsets " +
                   std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                   " are); re-export with --opset " + std::to_string(kMaxOpset));
  return file;
}

}  // namespace s2::onnx_import
