#pragma once
// The sliding-window attributes Conv, MaxPool and AveragePool share (kernel_shape, strides,
// pads, dilations, auto_pad), read and checked for the 2-D case and converted to the IR's
// conventions. ONNX pads [x1_begin, x2_begin, x1_end, x2_end] are the IR's [t,l,b,r].

#include <cstdint>
#include <vector>

#include "compiler/onnx/import_context.h"

namespace s2::onnx_import {

struct Window {
  std::vector<int64_t> kernel;    // [kh,kw]
  std::vector<int64_t> stride;    // [sh,sw]
  std::vector<int64_t> pads;      // [t,l,b,r]
  std::vector<int64_t> dilation;  // [dh,dw]
};

// Reads the window of a node whose input `x` is [N,C,H,W]. `kernel` is the kernel size the
// node's weight implies ([R,S] for Conv, checked against kernel_shape), or empty when
// kernel_shape is required (pools). auto_pad SAME_UPPER / SAME_LOWER is resolved into
// explicit pads from the static input size.
Window read_window(const NodeContext& n, const ir::Tensor& x, std::vector<int64_t> kernel);

// Adds the pads of a zero Pad folded into input 0 (translate_pad) to the window's; returns
// whether there were any. auto_pad with a folded Pad is an error (its SAME padding would be
// computed from the unpadded size).
bool add_folded_pads(NodeContext& n, Window& w);

}  // namespace s2::onnx_import
