#pragma once
// The ONNX operator types the importer translates, one registry entry per type, registered by
// the family files translate_*.cpp. Besides the translation function an entry says which
// inputs are read at import time (constant shapes: never parameters) and which take
// persistent state (batch-norm running statistics: role State instead of Weight), so the
// importer can give every initializer its role before translating any node.

#include <string>
#include <string_view>
#include <vector>

#include "compiler/onnx/import_context.h"
#include "isa/common/registry.h"

namespace s2::onnx_import {

using TranslateFn = void (*)(NodeContext&);

struct OnnxOp {
  TranslateFn translate = nullptr;
  std::vector<size_t> constant_inputs;
  std::vector<size_t> state_inputs;
};

// ONNX op types (domain ai.onnx) by name, in registration order.
using OnnxOpRegistry = Registry<OnnxOp>;
const OnnxOpRegistry& onnx_op_registry();

// One per translate_<family>.cpp.
void add_conv_ops(OnnxOpRegistry& r);  // Conv, BatchNormalization
void add_pool_ops(OnnxOpRegistry& r);  // MaxPool, AveragePool, GlobalAveragePool
void add_gemm_ops(OnnxOpRegistry& r);  // Gemm, MatMul
// Relu, Add, Mul, Expand, Where, Dropout, Identity, Constant, Flatten, Reshape, Concat, Pad
void add_tensor_ops(OnnxOpRegistry& r);
// Shape, Gather, Unsqueeze, Squeeze, Sub, Div, Equal, ConstantOfShape, Not, Cast, Trilu (folded
// at import), Slice, Split, Transpose, ReduceMean
void add_shape_ops(OnnxOpRegistry& r);
// Normalization: LayerNormalization
void add_norm_ops(OnnxOpRegistry& r);
// Softmax (any axis)
void add_softmax_ops(OnnxOpRegistry& r);
// t reshaped to `shape` (the IR's reshape view), through a dense DMA copy when t is a permuted
// or strided view that `shape` cannot view (ir::view_strides): ShuffleNet's channel shuffle, a
// MatMul on a transposed map. An empty suffix names the reshape as the node's own op; otherwise
// both ops are named node + suffix.
ir::TensorId reshape_of(NodeContext& n, ir::TensorId t, const ir::Shape& shape,
                        const std::string& suffix);
// Add or Mul (op '+' or '*') and Concat of integer constants, folded: false when an input is
// not one (then the node is a tensor op).
bool fold_integer_arithmetic(NodeContext& n, char op);
bool fold_integer_concat(NodeContext& n);
// Where(condition, X, Y) of integer constants, folded: false when X or Y is not one.
bool fold_integer_where(NodeContext& n);
// Add, Sub, Mul or Div (op '+', '-', '*', '/') of a tensor and a FLOAT constant holding one
// value (attention's 1/sqrt(d)) as the IR's scale, y = alpha * x + beta: false when neither or
// both inputs are such a constant. A constant divided by a tensor is an error; x / c is x times
// the f32 rounding of 1 / c (exact when c is a power of two).
bool scale_by_float_constant(NodeContext& n, char op);
// Clip, Sigmoid, HardSigmoid, HardSwish, Gelu
void add_activation_ops(OnnxOpRegistry& r);

// The ops of the importer's own domain (patterns.h, kPatternDomain): Silu, Gelu, Linear.
const OnnxOpRegistry& pattern_op_registry();
void add_pattern_ops(OnnxOpRegistry& r);
void add_gemm_pattern_ops(OnnxOpRegistry& r);  // Linear

}  // namespace s2::onnx_import
