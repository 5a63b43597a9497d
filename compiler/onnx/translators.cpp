#include "compiler/onnx/translators.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::onnx_import {
namespace {

const std::vector<OnnxOp>& onnx_ops() {
  static const std::vector<OnnxOp> ops = [] {
    std::vector<OnnxOp> all;
    add_conv_ops(all);
    add_pool_ops(all);
    add_gemm_ops(all);
    add_tensor_ops(all);
    std::sort(all.begin(), all.end(),
              [](const OnnxOp& a, const OnnxOp& b) { return a.type < b.type; });
    for (size_t i = 1; i < all.size(); ++i)
      S2_CHECK(all[i - 1].type != all[i].type,
               "ONNX op type '" + std::string(all[i].type) + "' registered twice");
    return all;
  }();
  return ops;
}

}  // namespace

const OnnxOp* find_onnx_op(std::string_view type) {
  const std::vector<OnnxOp>& ops = onnx_ops();
  const auto it =
      std::lower_bound(ops.begin(), ops.end(), type,
                       [](const OnnxOp& op, std::string_view t) { return op.type < t; });
  return it != ops.end() && it->type == type ? &*it : nullptr;
}

std::string supported_op_list() {
  std::string list;
  for (const OnnxOp& op : onnx_ops())
    list += (list.empty() ? "" : ", ") + std::string(op.type);
  return list;
}

}  // namespace s2::onnx_import
