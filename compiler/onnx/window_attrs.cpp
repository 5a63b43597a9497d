#include "compiler/onnx/window_attrs.h"

#include <algorithm>
#include <string>

namespace s2::onnx_import {
namespace {

// An ints attribute of `count` entries, each at least `min`.
std::vector<int64_t> checked_ints(const NodeContext& n, const std::string& name,
                                  std::vector<int64_t> fallback, size_t count, int64_t min,
                                  const std::string& meaning) {
  std::vector<int64_t> v = n.attr_ints(name, std::move(fallback));
  bool ok = v.size() == count;
  for (int64_t e : v)
    ok = ok && e >= min;
  if (!ok) n.fail_attr(name, "= " + ir::ints_text(v) + " must be " + meaning);
  return v;
}

// ONNX auto_pad SAME_*: the output size is ceil(in / stride) and the padding that needs is
// split evenly, the odd one at the end (SAME_UPPER) or at the beginning (SAME_LOWER).
void same_pads(const Window& w, const std::vector<int64_t>& in, bool upper,
               std::vector<int64_t>* pads) {
  for (size_t d = 0; d < 2; ++d) {
    const int64_t out = (in[d] + w.stride[d] - 1) / w.stride[d];
    const int64_t extent = (w.kernel[d] - 1) * w.dilation[d] + 1;
    const int64_t total = std::max<int64_t>(0, (out - 1) * w.stride[d] + extent - in[d]);
    const int64_t small = total / 2;
    (*pads)[d] = upper ? small : total - small;
    (*pads)[d + 2] = upper ? total - small : small;
  }
}

}  // namespace

Window read_window(const NodeContext& n, const ir::Tensor& x, std::vector<int64_t> kernel) {
  if (x.shape.size() != 4)
    n.fail("input '" + n.node().input(0) + "' is " + ir::shape_text(x.dtype, x.shape) +
           "; only 2-D windows over [N,C,H,W] are supported");
  Window w;
  if (kernel.empty()) {
    if (!n.has_attr("kernel_shape")) n.fail_attr("kernel_shape", "is required");
    w.kernel = checked_ints(n, "kernel_shape", {}, 2, 1, "2 integers >= 1 [kh,kw]");
  } else {
    w.kernel = kernel;
    if (n.has_attr("kernel_shape") && n.attr_ints("kernel_shape", {}) != kernel)
      n.fail_attr("kernel_shape", "= " + ir::ints_text(n.attr_ints("kernel_shape", {})) +
                                      " does not match the weight's kernel " +
                                      ir::ints_text(kernel));
  }
  w.stride = checked_ints(n, "strides", {1, 1}, 2, 1, "2 integers >= 1 [sh,sw]");
  w.dilation = checked_ints(n, "dilations", {1, 1}, 2, 1, "2 integers >= 1 [dh,dw]");
  w.pads = checked_ints(n, "pads", {0, 0, 0, 0}, 4, 0, "4 integers >= 0 [top,left,bottom,right]");

  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") return w;
  if (auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    n.fail_attr("auto_pad",
                "= " + auto_pad + " is not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER are)");
  if (n.has_attr("pads"))
    n.fail_attr("auto_pad", "= " + auto_pad + " cannot be combined with 'pads'");
  if (auto_pad != "VALID")
    same_pads(w, {x.shape[2], x.shape[3]}, auto_pad == "SAME_UPPER", &w.pads);
  return w;
}

bool add_folded_pads(NodeContext& n, Window& w) {
  const std::vector<int64_t>* folded = n.import().folded_pads(n.node().input(0));
  if (folded == nullptr) return false;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET")
    n.fail_attr("auto_pad", "= " + auto_pad + " cannot combine with the Pad folded into input '" +
                                n.node().input(0) + "' (only explicit pads)");
  for (size_t i = 0; i < 4; ++i)
    w.pads[i] += (*folded)[i];
  return true;
}

}  // namespace s2::onnx_import
