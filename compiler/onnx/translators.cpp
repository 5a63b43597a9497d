#include "compiler/onnx/translators.h"

namespace s2::onnx_import {

const OnnxOpRegistry& onnx_op_registry() {
  // A new family is a new translate_<family>.cpp plus one line here.
  static const OnnxOpRegistry registry = [] {
    OnnxOpRegistry r("ONNX operator", ListOrder::Sorted);
    add_conv_ops(r);
    add_norm_ops(r);
    add_softmax_ops(r);
    add_pool_ops(r);
    add_gemm_ops(r);
    add_tensor_ops(r);
    add_shape_ops(r);
    add_activation_ops(r);
    return r;
  }();
  return registry;
}

const OnnxOpRegistry& pattern_op_registry() {
  static const OnnxOpRegistry registry = [] {
    OnnxOpRegistry r("pattern operator", ListOrder::Sorted);
    add_pattern_ops(r);
    add_gemm_pattern_ops(r);
    return r;
  }();
  return registry;
}

}  // namespace s2::onnx_import
