// MaxPool, AveragePool and GlobalAveragePool, onto the IR's max_pool2d and avg_pool2d.

#include "compiler/onnx/translators.h"
#include "compiler/onnx/window_attrs.h"

namespace s2::onnx_import {
namespace {

using ir::Attrs;
using ir::OpType;

// The window of a pool: the IR's pools have no dilation.
Window pool_window(const NodeContext& n) {
  const Window w = read_window(n, n.input_tensor(0), {});
  if (w.dilation != std::vector<int64_t>{1, 1})
    n.fail_attr("dilations", "= " + ir::ints_text(w.dilation) + " is not supported (only [1,1])");
  return w;
}

int64_t flag(const NodeContext& n, const std::string& name, int64_t fallback) {
  const int64_t v = n.attr_int(name, fallback);
  if (v != 0 && v != 1) n.fail_attr(name, "= " + std::to_string(v) + " must be 0 or 1");
  return v;
}

void translate_max_pool(NodeContext& n) {
  n.allow_attributes(
      {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  const Window w = pool_window(n);
  if (n.attr_int("storage_order", 0) != 0)
    n.fail_attr("storage_order", "= " + std::to_string(n.attr_int("storage_order", 0)) +
                                     " is not supported (only 0, row major)");
  n.expect_unused_output(1,
                         "the IR's max_pool2d indices (i32, for its backward) are not "
                         "ONNX's int64 Indices");
  const Attrs attrs{{"kernel", w.kernel},
                    {"stride", w.stride},
                    {"pads", w.pads},
                    {"ceil_mode", flag(n, "ceil_mode", 0)}};
  n.set_output(0, n.add_op(OpType::MaxPool2d, {n.input(0)}, attrs).at(0));
}

void translate_average_pool(NodeContext& n) {
  n.allow_attributes({"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape",
                      "pads", "strides"});
  Window w = pool_window(n);
  // ONNX's default is count_include_pad = 0, the IR's (and PyTorch's) 1: always set it.
  int64_t count_include_pad = flag(n, "count_include_pad", 0);
  const std::vector<int64_t> own = w.pads;
  if (add_folded_pads(n, w)) {
    // The folded Pad's zeros are real elements of the window: the pool counts its padding.
    // With padding of its own that it does not count, the two cannot be one pool.
    if (count_include_pad == 0 && own != std::vector<int64_t>{0, 0, 0, 0})
      n.fail("pads " + ir::ints_text(own) +
             " with count_include_pad = 0 cannot combine with the zero Pad folded into input '" +
             n.node().input(0) + "' (whose zeros are counted)");
    count_include_pad = 1;
  }
  const Attrs attrs{{"kernel", w.kernel},
                    {"stride", w.stride},
                    {"pads", w.pads},
                    {"ceil_mode", flag(n, "ceil_mode", 0)},
                    {"count_include_pad", count_include_pad}};
  n.set_output(0, n.add(OpType::AvgPool2d, {n.input(0)}, attrs));
}

// Global average pooling is an average pool whose window is the whole plane.
void translate_global_average_pool(NodeContext& n) {
  n.allow_attributes({});
  const ir::Tensor& x = n.input_tensor(0);
  if (x.shape.size() != 4)
    n.fail("input '" + n.node().input(0) + "' is " + ir::shape_text(x.dtype, x.shape) +
           "; only [N,C,H,W] is supported");
  const std::vector<int64_t> plane{x.shape[2], x.shape[3]};
  const Attrs attrs{{"kernel", plane}, {"stride", plane}};
  n.set_output(0, n.add(OpType::AvgPool2d, {n.input(0)}, attrs));
}

}  // namespace

void add_pool_ops(OnnxOpRegistry& r) {
  r.add("MaxPool", {translate_max_pool, {}, {}});
  r.add("AveragePool", {translate_average_pool, {}, {}});
  r.add("GlobalAveragePool", {translate_global_average_pool, {}, {}});
}

}  // namespace s2::onnx_import
