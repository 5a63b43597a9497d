// Softmax onto the IR's softmax, which normalises over the last dimension (attention's
// scores). From opset 13 the axis is one dimension (default -1); an axis before the last is
// moved last by a transpose view and moved back after, so nothing is copied. Before opset 13
// the input is coerced to 2-D at the axis (default 1): the dimensions from the axis on are
// flattened into one row, normalised together, and the result reshaped back.

#include <numeric>
#include <string>
#include <vector>

#include "compiler/onnx/translators.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

void translate_softmax(NodeContext& n) {
  n.allow_attributes({"axis"});
  const ir::Tensor x = n.input_tensor(0);  // a copy: adding ops may move the graph's tensors
  const auto rank = static_cast<int64_t>(x.shape.size());
  const bool coerced = n.opset() < 13;
  const int64_t given = n.attr_int("axis", coerced ? 1 : -1);
  const int64_t axis = given < 0 ? given + rank : given;
  if (axis < 0 || axis >= rank)
    n.fail_attr("axis",
                "= " + std::to_string(given) + " is outside " + ir::shape_text(x.dtype, x.shape));
  ir::TensorId y;
  if (axis == rank - 1) {
    y = n.add(OpType::Softmax, {n.input(0)}, {});
  } else if (coerced) {
    const ir::Shape flat{ir::shape_numel(ir::Shape(x.shape.begin(), x.shape.begin() + axis)),
                         ir::shape_numel(ir::Shape(x.shape.begin() + axis, x.shape.end()))};
    const ir::TensorId xf = reshape_of(n, n.input(0), flat, "/x");
    const ir::TensorId yf = n.add(OpType::Softmax, {xf}, {});
    y = reshape_of(n, yf, x.shape, "/y");
  } else {
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    perm.erase(perm.begin() + axis);
    perm.push_back(axis);
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    ir::Graph& g = n.import().graph();
    const ir::TensorId xt = g.add(OpType::Transpose, g.unique_name(n.name() + "/transpose/x"),
                                  ir::OpCategory::Forward, {n.input(0)}, Attrs{{"perm", perm}});
    const ir::TensorId yt = n.add(OpType::Softmax, {xt}, {});
    y = g.add(OpType::Transpose, g.unique_name(n.name() + "/transpose/y"), ir::OpCategory::Forward,
              {yt}, Attrs{{"perm", inverse}});
  }
  n.set_output(0, y);
}

}  // namespace

void add_softmax_ops(OnnxOpRegistry& r) {
  r.add("Softmax", {translate_softmax, {}, {}});
}

}  // namespace s2::onnx_import
