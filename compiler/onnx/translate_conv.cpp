// Conv and BatchNormalization.
//
// PyTorch exports a training-mode BatchNorm2d as BatchNormalization with training_mode=1
// (opset 14+) or with its optional running-statistics outputs (opsets 9 to 13); it becomes
// the IR's training-mode batch_norm, whose running statistics are State parameters updated
// in place. An eval-mode export folds each BatchNorm2d into the preceding Conv's weight and
// bias, so it arrives as a Conv with bias; an unfolded inference-mode BatchNormalization has
// no IR equivalent and is rejected.

#include "compiler/onnx/translators.h"
#include "compiler/onnx/window_attrs.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

void translate_conv(NodeContext& n) {
  n.allow_attributes({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  const ir::TensorId x = n.input(0);
  const ir::TensorId w = n.input(1);
  const ir::Tensor& wt = n.input_tensor(1);
  if (wt.shape.size() != 4)
    n.fail("only 2-D convolutions are supported; the weight '" + n.node().input(1) + "' is " +
           ir::shape_text(wt.dtype, wt.shape));
  Window win = read_window(n, n.input_tensor(0), {wt.shape[2], wt.shape[3]});
  add_folded_pads(n, win);  // a zero Pad before the Conv is more of its zero padding
  std::vector<ir::TensorId> inputs{x, w};
  if (n.has_input(2)) inputs.push_back(n.input(2));
  const Attrs attrs{{"stride", win.stride},
                    {"pads", win.pads},
                    {"dilation", win.dilation},
                    {"groups", n.attr_int("group", 1)}};
  n.set_output(0, n.add(OpType::Conv2d, inputs, attrs));
}

bool training_mode(const NodeContext& n) {
  if (n.opset() >= 14) {
    const int64_t mode = n.attr_int("training_mode", 0);
    if (mode != 0 && mode != 1)
      n.fail_attr("training_mode", "= " + std::to_string(mode) + " must be 0 or 1");
    return mode == 1;
  }
  // Opsets 9 to 13 have no attribute: training mode is asked for by the optional outputs.
  if (n.has_attr("training_mode"))
    n.fail_attr("training_mode", "does not exist before opset 14 (the model's is " +
                                     std::to_string(n.opset()) + ")");
  return n.has_output(1) || n.has_output(2);
}

void translate_batch_norm(NodeContext& n) {
  n.allow_attributes({"epsilon", "momentum", "training_mode"});
  if (!training_mode(n)) {
    const std::string why =
        " is not supported: the IR's batch_norm is training-mode only. Export with --mode "
        "train, or with --mode eval, where PyTorch folds BatchNormalization into the "
        "preceding Conv";
    if (n.opset() >= 14) n.fail_attr("training_mode", "= 0 (inference mode)" + why);
    n.fail("inference mode (no running-statistics outputs)" + why);
  }
  const double eps = decimal_value(n.attr_float("epsilon", 1e-5f));
  // ONNX: running = running * momentum + batch * (1 - momentum); the IR uses PyTorch's
  // momentum, the weight of the batch statistic.
  const double onnx_momentum = decimal_value(n.attr_float("momentum", 0.9f));
  const double momentum = decimal_value(static_cast<float>(1.0 - onnx_momentum));
  const std::vector<ir::TensorId> outs =
      n.add_op(OpType::BatchNorm, {n.input(0), n.input(1), n.input(2), n.input(3), n.input(4)},
               Attrs{{"eps", eps}, {"momentum", momentum}});
  // IR outputs: y, saved_mean, saved_invstd, running_mean_out, running_var_out.
  n.set_output(0, outs[0]);
  n.set_output(1, outs[3]);
  n.set_output(2, outs[4]);
  if (n.opset() < 14) {  // outputs 3 and 4 (opsets 9 to 13): saved mean and saved variance
    n.set_output(3, outs[1]);
    n.expect_unused_output(4, "the IR's batch_norm saves 1/sqrt(var + eps), not the variance");
  }
}

}  // namespace

void add_conv_ops(OnnxOpRegistry& r) {
  r.add("Conv", {translate_conv, {}, {}});
  r.add("BatchNormalization", {translate_batch_norm, {}, {3, 4}});
}

}  // namespace s2::onnx_import
