#pragma once
// Idioms that ONNX exporters spell as several nodes and the IR computes as one op. Before any
// node is translated, each match is replaced by one node of the importer's own domain
// (kPatternDomain), translated like any other (translate_activation.cpp, translate_gemm.cpp):
//   Sigmoid(x) -> Mul(x, .)                                        Silu(x)
//   Div(x, sqrt 2) -> Erf -> Add(., 1) -> Mul(x, .) -> Mul(., 0.5)  Gelu(x), approximate "none"
//   x*x*x -> Mul(0.044715, .) -> Add(x, .) -> Mul(sqrt(2/pi), .) -> Tanh -> Add(1, .)
//     -> Mul(x, .) -> Mul(0.5, .)                                  Gelu(x), approximate "tanh"
//   MatMul(a, b) -> Add(., bias)  (bias a 1-D constant)            Linear(a, b, bias)
// (PyTorch 1.13's exports of nn.SiLU, nn.GELU, and of nn.Linear on a tensor of rank > 2, at
// opset 13-17; operands of Add and Mul in either order). A match needs every intermediate
// value to have exactly one reader and not to be a graph output, and the constants to be
// scalars within 1e-6 of the expected values (Linear: a bias of more than one value);
// anything else is left alone and translated node by node.

#include <onnx/onnx_pb.h>

#include <vector>

namespace s2::onnx_import {

inline constexpr const char* kPatternDomain = "ai.s2train";

struct PatternNode {
  int index;  // position of the node in the file (of the pattern's last node), for messages
  onnx::NodeProto node;
};

// The graph's nodes with every match replaced, in the file's order.
std::vector<PatternNode> recognise_patterns(const onnx::GraphProto& graph);

}  // namespace s2::onnx_import
