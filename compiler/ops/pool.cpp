// The pooling family: max_pool2d, avg_pool2d and their gradients. All run on the PPU.
// Layout NCHW; semantics are PyTorch's (max_pool2d / avg_pool2d with ceil_mode and
// count_include_pad), with the padding given per side: pads [top,left,bottom,right].
//
// The arithmetic (window clipping, tie and NaN rules, summation orders, divisors) is
// isa/numerics/pool.h, shared with the simulator's functional model; this file keeps the
// op schemas, the attribute checks and the operand plumbing.

#include "isa/numerics/pool.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"

namespace s2::ir {
namespace {

using Ints = std::vector<int64_t>;

using numerics::PoolGeometry;

// The geometry of pooling planes of H x W by the (validated) attributes.
PoolGeometry geometry(const Attrs& attrs, int64_t planes, int64_t h, int64_t w) {
  const Ints& kernel = attrs.ints("kernel");
  const Ints& stride = attrs.ints("stride");
  const Ints& pads = attrs.ints("pads");
  PoolGeometry g;
  g.planes = planes, g.h = h, g.w = w;
  g.kh = kernel[0], g.kw = kernel[1], g.sh = stride[0], g.sw = stride[1];
  g.pt = pads[0], g.pl = pads[1], g.pb = pads[2], g.pr = pads[3];
  const bool ceil_mode = attrs.i("ceil_mode") != 0;
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  g.p = static_cast<int64_t>(
      isa::window_output_size(u(h), u(g.pt), u(g.pb), u(g.kh), u(g.sh), 1, ceil_mode));
  g.q = static_cast<int64_t>(
      isa::window_output_size(u(w), u(g.pl), u(g.pr), u(g.kw), u(g.sw), 1, ceil_mode));
  return g;
}

// Validates the attributes shared by the family and x's rank and type (input 0); returns
// the geometry of input planes of `hw` (x's own plane when hw is null).
PoolGeometry check_pool(const InferContext& ctx, const Ints* hw) {
  ctx.expect_float(0);
  ctx.expect_rank(0, 4);
  const Attrs& a = ctx.attrs();
  const Ints& kernel = a.ints("kernel");
  const Ints& stride = a.ints("stride");
  const Ints& pads = a.ints("pads");
  auto all_at_least = [](const Ints& v, int64_t min) {
    for (int64_t x : v)
      if (x < min) return false;
    return true;
  };
  if (kernel.size() != 2 || !all_at_least(kernel, 1))
    ctx.fail("attribute 'kernel' must be 2 integers >= 1 [kh,kw], got " + ints_text(kernel));
  if (stride.size() != 2 || !all_at_least(stride, 1))
    ctx.fail("attribute 'stride' must be 2 integers >= 1 [sh,sw], got " + ints_text(stride));
  if (pads.size() != 4 || !all_at_least(pads, 0))
    ctx.fail("attribute 'pads' must be 4 integers >= 0 [top,left,bottom,right], got " +
             ints_text(pads));
  // PyTorch's rule; it also guarantees that every window overlaps the input.
  if (2 * pads[0] > kernel[0] || 2 * pads[2] > kernel[0] || 2 * pads[1] > kernel[1] ||
      2 * pads[3] > kernel[1])
    ctx.fail("pads " + ints_text(pads) + " must be at most half of the kernel " +
             ints_text(kernel) + " on every side");
  for (const char* flag : {"ceil_mode", "count_include_pad"})
    if (a.has(flag) && a.i(flag) != 0 && a.i(flag) != 1)
      ctx.fail("attribute '" + std::string(flag) + "' must be 0 or 1, got " +
               std::to_string(a.i(flag)));
  const Shape& x = ctx.shape(0);
  const int64_t h = hw ? (*hw)[0] : x[2], w = hw ? (*hw)[1] : x[3];
  const PoolGeometry g = geometry(a, x[0] * x[1], h, w);
  if (g.p == 0 || g.q == 0) {
    const std::string what = hw ? "the input_hw " + ints_text(*hw) + " input" : ctx.describe(0);
    ctx.fail("the " + std::to_string(g.kh) + "x" + std::to_string(g.kw) +
             " window is larger than " + what + " padded to " + std::to_string(h + g.pt + g.pb) +
             "x" + std::to_string(w + g.pl + g.pr) + " (pads " + ints_text(pads) + ")");
  }
  return g;
}

// For the backward ops: validates input_hw and that input 0 (dy) has the forward output
// plane; returns the geometry.
PoolGeometry check_pool_bwd(const InferContext& ctx) {
  const Ints& hw = ctx.attrs().ints("input_hw");
  if (hw.size() != 2 || hw[0] < 1 || hw[1] < 1)
    ctx.fail("attribute 'input_hw' must be 2 integers >= 1 [H,W], got " + ints_text(hw));
  const PoolGeometry g = check_pool(ctx, &hw);
  const Shape& dy = ctx.shape(0);
  if (dy[2] != g.p || dy[3] != g.q)
    ctx.fail(ctx.describe(0) + " does not match the " + std::to_string(g.p) + "x" +
             std::to_string(g.q) + " output plane of pooling the input_hw " + ints_text(hw) +
             " input");
  return g;
}

void emit_pool_backward(BackwardContext& ctx, OpType type, const std::vector<TensorId>& inputs) {
  if (!ctx.needs_grad(0)) return;
  const Shape x = ctx.tensor(ctx.input(0)).shape;  // a copy: emitting grows the graph
  Attrs attrs = ctx.attrs();
  attrs.set("input_hw", Ints{x[2], x[3]});
  ctx.add_grad(0, ctx.emit1(type, "bwd", ctx.grad_category(0), inputs, attrs));
}

// --- max_pool2d -----------------------------------------------------------------------------

std::vector<OutputSpec> infer_max_pool2d(const InferContext& ctx) {
  const PoolGeometry g = check_pool(ctx, nullptr);
  const Shape& x = ctx.shape(0);
  if (x[2] * x[3] > std::numeric_limits<int32_t>::max())
    ctx.fail(ctx.describe(0) + " has planes too large for i32 indices");
  OutputSpec y, indices;
  y.dtype = ctx.result_dtype();
  y.shape = indices.shape = {x[0], x[1], g.p, g.q};
  indices.dtype = DType::I32;
  return {y, indices};
}

void backward_max_pool2d(BackwardContext& ctx) {
  const TensorId dy = ctx.grad_output(0);  // the indices carry no gradient
  if (dy.valid()) emit_pool_backward(ctx, OpType::MaxPool2dBwd, {dy, ctx.output(1)});
}

void kernel_max_pool2d(KernelContext& ctx) {
  const Shape& x = ctx.in[0].shape;
  const PoolGeometry g = geometry(ctx.op.attrs, x[0] * x[1], x[2], x[3]);
  numerics::max_pool2d_forward(g, ctx.in[0].f32, ctx.out[0].f32, ctx.out[1].i32);
}

// --- max_pool2d_bwd -------------------------------------------------------------------------

std::vector<OutputSpec> infer_max_pool2d_bwd(const InferContext& ctx) {
  const PoolGeometry g = check_pool_bwd(ctx);
  ctx.expect_dtype(1, DType::I32);
  ctx.expect_shape(1, ctx.shape(0));
  const Shape& dy = ctx.shape(0);
  OutputSpec dx;
  dx.dtype = ctx.result_dtype();
  dx.shape = {dy[0], dy[1], g.h, g.w};
  return {dx};
}

void kernel_max_pool2d_bwd(KernelContext& ctx) {
  const Shape& dx = ctx.out[0].shape;
  const PoolGeometry g = geometry(ctx.op.attrs, dx[0] * dx[1], dx[2], dx[3]);
  const std::optional<size_t> bad =
      numerics::max_pool2d_backward(g, ctx.in[0].f32, ctx.in[1].i32, ctx.out[0].f32);
  // Indices come from max_pool2d; anything else is a malformed graph, never a write outside
  // the plane.
  if (bad)
    throw InternalError("max_pool2d_bwd '" + ctx.op.name + "': index " +
                        std::to_string(ctx.in[1].i32[*bad]) + " outside the " +
                        std::to_string(g.h) + "x" + std::to_string(g.w) + " input plane");
}

// --- avg_pool2d -----------------------------------------------------------------------------

std::vector<OutputSpec> infer_avg_pool2d(const InferContext& ctx) {
  const PoolGeometry g = check_pool(ctx, nullptr);
  const Shape& x = ctx.shape(0);
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape = {x[0], x[1], g.p, g.q};
  return {y};
}

void backward_avg_pool2d(BackwardContext& ctx) {
  const TensorId dy = ctx.grad_output(0);
  if (dy.valid()) emit_pool_backward(ctx, OpType::AvgPool2dBwd, {dy});
}

void kernel_avg_pool2d(KernelContext& ctx) {
  const Shape& x = ctx.in[0].shape;
  const PoolGeometry g = geometry(ctx.op.attrs, x[0] * x[1], x[2], x[3]);
  numerics::avg_pool2d_forward(g, ctx.op.attrs.i("count_include_pad") != 0, ctx.in[0].f32,
                               ctx.out[0].f32);
}

// --- avg_pool2d_bwd -------------------------------------------------------------------------

std::vector<OutputSpec> infer_avg_pool2d_bwd(const InferContext& ctx) {
  const PoolGeometry g = check_pool_bwd(ctx);
  const Shape& dy = ctx.shape(0);
  OutputSpec dx;
  dx.dtype = ctx.result_dtype();
  dx.shape = {dy[0], dy[1], g.h, g.w};
  return {dx};
}

void kernel_avg_pool2d_bwd(KernelContext& ctx) {
  const Shape& dx = ctx.out[0].shape;
  const PoolGeometry g = geometry(ctx.op.attrs, dx[0] * dx[1], dx[2], dx[3]);
  numerics::avg_pool2d_backward(g, ctx.op.attrs.i("count_include_pad") != 0, ctx.in[0].f32,
                                ctx.out[0].f32);
}

std::vector<AttrSpec> pool_attrs(bool avg, bool bwd) {
  std::vector<AttrSpec> attrs = {{"kernel", AttrKind::Ints, std::nullopt},
                                 {"stride", AttrKind::Ints, std::nullopt},
                                 {"pads", AttrKind::Ints, Ints{0, 0, 0, 0}},
                                 {"ceil_mode", AttrKind::Int, int64_t{0}}};
  if (avg) attrs.push_back({"count_include_pad", AttrKind::Int, int64_t{1}});
  if (bwd) attrs.push_back({"input_hw", AttrKind::Ints, std::nullopt});
  return attrs;
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

void encode_pool(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.ints("kernel", {Field::KernelH, Field::KernelW});
  w.ints("stride", lower::kStrideFields);
  w.ints("pads", lower::kPadFields);
  w.flag(Field::CeilMode, "ceil_mode");
  if (inst.has_field(Field::CountIncludePad)) w.flag(Field::CountIncludePad, "count_include_pad");
}

void decode_pool(const Instruction& inst, ir::Attrs& a) {
  a.set("kernel", field_ints(inst, {Field::KernelH, Field::KernelW}));
  a.set("stride", field_ints(inst, lower::kStrideFields));
  a.set("pads", field_ints(inst, lower::kPadFields));
  a.set("ceil_mode", int64_t{inst.u(Field::CeilMode)});
  if (inst.has_field(Field::CountIncludePad))
    a.set("count_include_pad", int64_t{inst.u(Field::CountIncludePad)});
  if (inst.has_slot(Slot::Dx)) a.set("input_hw", plane_of(inst, Slot::Dx));
}

}  // namespace

void register_pool_ops(OpRegistry& r) {
  const SlotBinding x{"x", Slot::X}, dy{"dy", Slot::Dy}, dx{"dx", Slot::Dx}, y{"y", Slot::Y};
  add_op(r,
         {OpType::MaxPool2d,
          FusionClass::Ppu,
          {{"x"}},
          {"y", "indices"},
          pool_attrs(false, false),
          infer_max_pool2d,
          backward_max_pool2d,
          kernel_max_pool2d,
          "2-D max pooling: x [N,C,H,W] -> y [N,C,P,Q] and indices i32 [N,C,P,Q], the flat index "
          "h*W+w of each maximum inside its input plane (the first one in row-major window order "
          "on ties). kernel [kh,kw], stride [sh,sw], pads [top,left,bottom,right] (padding never "
          "wins; at most half the kernel), ceil_mode as in PyTorch."},
         {OpType::MaxPool2d,
          Opcode::MaxPoolFwd,
          {x},
          {y, {"indices", Slot::Idx, Slot::Y}},
          false,
          encode_pool,
          decode_pool,
          always});
  add_op(r,
         {OpType::MaxPool2dBwd,
          FusionClass::Ppu,
          {{"dy"}, {"indices"}},
          {"dx"},
          pool_attrs(false, true),
          infer_max_pool2d_bwd,
          nullptr,
          kernel_max_pool2d_bwd,
          "Gradient of max_pool2d: dx [N,C,H,W] is zero except dx[plane][indices] += dy. "
          "Attributes of the forward max_pool2d, plus input_hw [H,W]."},
         {OpType::MaxPool2dBwd,
          Opcode::MaxPoolBwd,
          {dy, {"indices", Slot::Idx}},
          {dx},
          false,
          encode_pool,
          decode_pool,
          always});
  add_op(
      r,
      {OpType::AvgPool2d,
       FusionClass::Ppu,
       {{"x"}},
       {"y"},
       pool_attrs(true, false),
       infer_avg_pool2d,
       backward_avg_pool2d,
       kernel_avg_pool2d,
       "2-D average pooling: x [N,C,H,W] -> y [N,C,P,Q]. kernel, stride, pads "
       "[top,left,bottom,right] (at most half the kernel), ceil_mode and count_include_pad as "
       "in PyTorch (the divisor counts the window clipped to input + padding, or to the input "
       "alone without count_include_pad). Global average pooling: kernel = stride = [H,W]."},
      {OpType::AvgPool2d, Opcode::AvgPoolFwd, {x}, {y}, false, encode_pool, decode_pool, always});
  add_op(r,
         {OpType::AvgPool2dBwd,
          FusionClass::Ppu,
          {{"dy"}},
          {"dx"},
          pool_attrs(true, true),
          infer_avg_pool2d_bwd,
          nullptr,
          kernel_avg_pool2d_bwd,
          "Gradient of avg_pool2d: each dy spread evenly (divided by its window's divisor) over "
          "the input elements of its window. Attributes of the forward avg_pool2d, plus input_hw "
          "[H,W]."},
         {OpType::AvgPool2dBwd,
          Opcode::AvgPoolBwd,
          {dy},
          {dx},
          false,
          encode_pool,
          decode_pool,
          always});
}

}  // namespace s2::ir
