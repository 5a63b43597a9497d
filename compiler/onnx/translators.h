#pragma once
// The table of ONNX operator types the importer translates, one entry per type, registered
// by the family files translate_*.cpp. Besides the translation function an entry says which
// inputs are read at import time (constant shapes: never parameters) and which take
// persistent state (batch-norm running statistics: role State instead of Weight), so the
// importer can give every initializer its role before translating any node.

#include <string>
#include <string_view>
#include <vector>

#include "compiler/onnx/import_context.h"

namespace s2::onnx_import {

using TranslateFn = void (*)(NodeContext&);

struct OnnxOp {
  std::string_view type;  // the ONNX op_type, domain ai.onnx
  TranslateFn translate = nullptr;
  std::vector<size_t> constant_inputs;
  std::vector<size_t> state_inputs;
};

// Null when the type is not supported.
const OnnxOp* find_onnx_op(std::string_view type);
// "Add, AveragePool, ..." for the unsupported-op message.
std::string supported_op_list();

// One per translate_<family>.cpp.
void add_conv_ops(std::vector<OnnxOp>& ops);    // Conv, BatchNormalization
void add_pool_ops(std::vector<OnnxOp>& ops);    // MaxPool, AveragePool, GlobalAveragePool
void add_gemm_ops(std::vector<OnnxOp>& ops);    // Gemm, MatMul
void add_tensor_ops(std::vector<OnnxOp>& ops);  // Relu, Add, Identity, Constant, Flatten, Reshape

}  // namespace s2::onnx_import
