#pragma once
// Reading an .onnx file into a ModelProto and the model-level checks: the file opens, parses
// as a protobuf ModelProto, has a graph, and declares an ai.onnx opset the importer handles.
// Tensors stored as external data (files beside the model, as PyTorch writes a model over
// protobuf's 2 GB limit) are read into the model.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace s2::onnx_import {

// The ai.onnx opsets whose operator semantics the translators follow.
inline constexpr int64_t kMinOpset = 9;
inline constexpr int64_t kMaxOpset = 17;

struct ModelFile {
  std::string path;  // as given, for error messages
  onnx::ModelProto model;
  int64_t opset = 0;  // of the default (ai.onnx) domain
};

// Throws UserError naming `path` when the file is missing, unreadable, not an ONNX model, or
// uses an unsupported opset, and naming the tensor when its external data cannot be read
// (missing or short file, a location outside the model's directory, a bad entry).
ModelFile load_model_file(const std::string& path);

}  // namespace s2::onnx_import
