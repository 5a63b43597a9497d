// The convolution family: conv2d and its two gradients, conv2d_bwd_data (the transposed
// convolution giving dx) and conv2d_bwd_weight (giving dw). All run on the PE array.
// Layout NCHW; the kernels and their accumulation order are in isa/numerics/conv.h.
//
// Each carries the epilogue stages its ISA instruction has (ops/epilogue.h), as optional
// inputs after the positional ones and an `act` attribute defaulting to "none", so a graph
// built without them means what it always meant: conv2d (bias, residual, act),
// conv2d_bwd_data (residual, gate), conv2d_bwd_weight (residual). The fusion pass
// (passes/fusion.h) fills them in.

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/conv_kernels.h"
#include "compiler/ops/epilogue.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/encoding/semantics.h"

namespace s2::ir {
namespace {

using conv_kernels::ConvGeometry;
using Ints = std::vector<int64_t>;

void expect_float_rank(const InferContext& ctx, size_t i, size_t rank) {
  ctx.expect_float(i);
  ctx.expect_rank(i, rank);
}

// An ints attribute of `count` entries, each at least `min`.
const Ints& ints_attr(const InferContext& ctx, const std::string& name, size_t count, int64_t min,
                      const std::string& meaning) {
  const Ints& v = ctx.attrs().ints(name);
  bool ok = v.size() == count;
  for (int64_t x : v)
    ok = ok && x >= min;
  if (!ok) ctx.fail("attribute '" + name + "' must be " + meaning + ", got " + ints_text(v));
  return v;
}

// The attributes every op of the family shares, validated.
void check_conv_attrs(const InferContext& ctx) {
  ints_attr(ctx, "stride", 2, 1, "2 integers >= 1 [sh,sw]");
  ints_attr(ctx, "pads", 4, 0, "4 integers >= 0 [top,left,bottom,right]");
  ints_attr(ctx, "dilation", 2, 1, "2 integers >= 1 [dh,dw]");
  if (ctx.attrs().i("groups") < 1)
    ctx.fail("attribute 'groups' must be at least 1, got " +
             std::to_string(ctx.attrs().i("groups")));
}

// The geometry from the (validated) attributes, the input plane [H,W] and the filter [R,S];
// sets p and q, 0 when the window does not fit.
ConvGeometry geometry(const Attrs& attrs, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                      int64_t r, int64_t s) {
  const Ints& stride = attrs.ints("stride");
  const Ints& pads = attrs.ints("pads");
  const Ints& dilation = attrs.ints("dilation");
  ConvGeometry g;
  g.n = n, g.c = c, g.h = h, g.w = w, g.k = k, g.r = r, g.s = s;
  g.sh = stride[0], g.sw = stride[1], g.pt = pads[0], g.pl = pads[1];
  g.dh = dilation[0], g.dw = dilation[1], g.groups = attrs.i("groups");
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  g.p = static_cast<int64_t>(
      isa::window_output_size(u(h), u(pads[0]), u(pads[2]), u(r), u(g.sh), u(g.dh), false));
  g.q = static_cast<int64_t>(
      isa::window_output_size(u(w), u(pads[1]), u(pads[3]), u(s), u(g.sw), u(g.dw), false));
  return g;
}

// Fails unless the window fits the padded input; `what` names the input plane.
void expect_window_fits(const InferContext& ctx, const ConvGeometry& g, const std::string& what) {
  if (g.p > 0 && g.q > 0) return;
  const Ints& pads = ctx.attrs().ints("pads");
  ctx.fail("the " + std::to_string(g.r) + "x" + std::to_string(g.s) + " window (dilation " +
           std::to_string(g.dh) + "x" + std::to_string(g.dw) + ", extent " +
           std::to_string(g.dh * (g.r - 1) + 1) + "x" + std::to_string(g.dw * (g.s - 1) + 1) +
           ") is larger than " + what + " padded to " + std::to_string(g.h + pads[0] + pads[2]) +
           "x" + std::to_string(g.w + pads[1] + pads[3]) + " (pads " + ints_text(pads) + ")");
}

// Fails unless `groups` divides the channels of input i (dimension dim).
void expect_groups_divide(const InferContext& ctx, size_t i, size_t dim, const std::string& what) {
  const int64_t groups = ctx.attrs().i("groups");
  if (ctx.shape(i)[dim] % groups != 0)
    ctx.fail("groups=" + std::to_string(groups) + " does not divide the " +
             std::to_string(ctx.shape(i)[dim]) + " " + what + " of " + ctx.describe(i));
}

// Fails unless the spatial size of dy (input i) is the conv output size.
void expect_output_plane(const InferContext& ctx, size_t i, const ConvGeometry& g,
                         const std::string& from) {
  const Shape& dy = ctx.shape(i);
  if (dy[2] != g.p || dy[3] != g.q)
    ctx.fail(ctx.describe(i) + " does not match the " + std::to_string(g.p) + "x" +
             std::to_string(g.q) + " output plane of the convolution of " + from);
}

// --- conv2d ---------------------------------------------------------------------------------

std::vector<OutputSpec> infer_conv2d(const InferContext& ctx) {
  expect_float_rank(ctx, 0, 4);
  expect_float_rank(ctx, 1, 4);
  ctx.expect_same_dtype(0, 1);
  check_conv_attrs(ctx);
  const Shape& x = ctx.shape(0);
  const Shape& w = ctx.shape(1);
  const int64_t groups = ctx.attrs().i("groups");
  expect_groups_divide(ctx, 0, 1, "channels");
  expect_groups_divide(ctx, 1, 0, "output channels");
  if (w[1] != x[1] / groups)
    ctx.fail(ctx.describe(1) + " has " + std::to_string(w[1]) + " input channels per group, but " +
             ctx.describe(0) + " with groups=" + std::to_string(groups) + " has " +
             std::to_string(x[1] / groups));
  if (ctx.has_input(2)) {
    ctx.expect_float(2);
    ctx.expect_shape(2, {w[0]});
  }
  const ConvGeometry g = geometry(ctx.attrs(), x[0], x[1], x[2], x[3], w[0], w[2], w[3]);
  expect_window_fits(ctx, g, ctx.describe(0));
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape = {x[0], w[0], g.p, g.q};
  epilogue::expect_operand(ctx, 3, y.shape);
  return {y, epilogue::pre_output(ctx, y, epilogue::act_of(ctx))};
}

// The residual is added after the convolution, so its gradient is dy itself.
void backward_conv2d(BackwardContext& ctx) {
  const TensorId dy = ctx.grad_output(0);
  if (!dy.valid()) return;
  const std::string& act = ctx.attrs().s("act");
  epilogue::expect_differentiable(ctx, act != "none", "act=" + act);
  // Copies: emitting ops grows the graph's tensor storage.
  const Shape x = ctx.tensor(ctx.input(0)).shape;
  const Shape w = ctx.tensor(ctx.input(1)).shape;
  const Attrs forward_attrs = epilogue::without_act(ctx.attrs());
  if (ctx.needs_grad(0)) {
    Attrs attrs = forward_attrs;
    attrs.set("input_hw", Ints{x[2], x[3]});
    ctx.add_grad(0, ctx.emit1(OpType::Conv2dBwdData, "bwd_data", ctx.grad_category(0),
                              {dy, ctx.input(1)}, attrs));
  }
  if (ctx.needs_grad(1)) {
    Attrs attrs = forward_attrs;
    attrs.set("kernel_hw", Ints{w[2], w[3]});
    ctx.add_grad(1, ctx.emit1(OpType::Conv2dBwdWeight, "bwd_weight", ctx.grad_category(1),
                              {ctx.input(0), dy}, attrs));
  }
  if (ctx.input(2).valid() && ctx.needs_grad(2))
    ctx.add_grad(2, ctx.emit1(OpType::ReduceSum, "bwd_bias", ctx.grad_category(2), {dy},
                              Attrs{{"axes", Ints{0, 2, 3}}}));
  if (ctx.input(3).valid() && ctx.needs_grad(3)) ctx.add_grad(3, dy);
}

void kernel_conv2d(KernelContext& ctx) {
  const Shape& x = ctx.in[0].shape;
  const Shape& w = ctx.in[1].shape;
  const ConvGeometry g = geometry(ctx.op.attrs, x[0], x[1], x[2], x[3], w[0], w[2], w[3]);
  numerics::conv2d_forward(conv_kernels::to_numerics(g), ctx.in[0].f32, ctx.in[1].f32,
                           epilogue::optional_f32(ctx.in[2]), ctx.out[0].f32, ctx.pe);
  epilogue::apply(ctx.out[0].f32, static_cast<size_t>(ctx.out[0].numel()),
                  epilogue::optional_f32(ctx.in[3]), epilogue::act_of(ctx.op), nullptr,
                  isa::Activation::Relu, ctx.out[0].dtype, epilogue::pre_f32(ctx.out[1]),
                  ctx.out[1].dtype);
}

// --- conv2d_bwd_data ------------------------------------------------------------------------

std::vector<OutputSpec> infer_conv2d_bwd_data(const InferContext& ctx) {
  expect_float_rank(ctx, 0, 4);
  expect_float_rank(ctx, 1, 4);
  ctx.expect_same_dtype(0, 1);
  check_conv_attrs(ctx);
  const Ints& hw = ints_attr(ctx, "input_hw", 2, 1, "2 integers >= 1 [H,W]");
  const Shape& dy = ctx.shape(0);
  const Shape& w = ctx.shape(1);
  if (dy[1] != w[0])
    ctx.fail(ctx.describe(0) + " has " + std::to_string(dy[1]) + " channels, but " +
             ctx.describe(1) + " has " + std::to_string(w[0]) + " output channels");
  expect_groups_divide(ctx, 1, 0, "output channels");
  epilogue::gate_act_of(ctx);
  const int64_t c = w[1] * ctx.attrs().i("groups");
  const ConvGeometry g = geometry(ctx.attrs(), dy[0], c, hw[0], hw[1], w[0], w[2], w[3]);
  const std::string plane = "the input_hw " + ints_text(hw) + " input";
  expect_window_fits(ctx, g, plane);
  expect_output_plane(ctx, 0, g, plane);
  OutputSpec dx;
  dx.dtype = ctx.result_dtype();
  dx.shape = {dy[0], c, hw[0], hw[1]};
  epilogue::expect_operand(ctx, 2, dx.shape);
  epilogue::expect_operand(ctx, 3, dx.shape);
  return {dx};
}

void kernel_conv2d_bwd_data(KernelContext& ctx) {
  const Shape& dy = ctx.in[0].shape;
  const Shape& w = ctx.in[1].shape;
  const Shape& dx = ctx.out[0].shape;
  const ConvGeometry g = geometry(ctx.op.attrs, dx[0], dx[1], dx[2], dx[3], dy[1], w[2], w[3]);
  numerics::conv2d_backward_data(conv_kernels::to_numerics(g), ctx.in[0].f32, ctx.in[1].f32,
                                 ctx.out[0].f32, ctx.pe);
  epilogue::apply(ctx.out[0].f32, static_cast<size_t>(ctx.out[0].numel()),
                  epilogue::optional_f32(ctx.in[2]), isa::Activation::None,
                  epilogue::optional_f32(ctx.in[3]), epilogue::gate_act_of(ctx.op),
                  ctx.out[0].dtype);
}

// --- conv2d_bwd_weight ----------------------------------------------------------------------

std::vector<OutputSpec> infer_conv2d_bwd_weight(const InferContext& ctx) {
  expect_float_rank(ctx, 0, 4);
  expect_float_rank(ctx, 1, 4);
  ctx.expect_same_dtype(0, 1);
  check_conv_attrs(ctx);
  const Ints& rs = ints_attr(ctx, "kernel_hw", 2, 1, "2 integers >= 1 [R,S]");
  const Shape& x = ctx.shape(0);
  const Shape& dy = ctx.shape(1);
  if (dy[0] != x[0])
    ctx.fail(ctx.describe(1) + " has batch " + std::to_string(dy[0]) + ", but " + ctx.describe(0) +
             " has batch " + std::to_string(x[0]));
  expect_groups_divide(ctx, 0, 1, "channels");
  expect_groups_divide(ctx, 1, 1, "channels");
  const ConvGeometry g = geometry(ctx.attrs(), x[0], x[1], x[2], x[3], dy[1], rs[0], rs[1]);
  expect_window_fits(ctx, g, ctx.describe(0));
  expect_output_plane(ctx, 1, g, ctx.describe(0));
  OutputSpec dw;
  dw.dtype = ctx.result_dtype();
  dw.shape = {dy[1], x[1] / ctx.attrs().i("groups"), rs[0], rs[1]};
  epilogue::expect_operand(ctx, 2, dw.shape);
  return {dw};
}

void kernel_conv2d_bwd_weight(KernelContext& ctx) {
  const Shape& x = ctx.in[0].shape;
  const Shape& dw = ctx.out[0].shape;
  const ConvGeometry g = geometry(ctx.op.attrs, x[0], x[1], x[2], x[3], dw[0], dw[2], dw[3]);
  numerics::conv2d_backward_weight(conv_kernels::to_numerics(g), ctx.in[0].f32, ctx.in[1].f32,
                                   ctx.out[0].f32, ctx.pe);
  epilogue::apply(ctx.out[0].f32, static_cast<size_t>(ctx.out[0].numel()),
                  epilogue::optional_f32(ctx.in[2]), isa::Activation::None, nullptr);
}

std::vector<AttrSpec> conv_attrs() {
  return {{"stride", AttrKind::Ints, Ints{1, 1}},
          {"pads", AttrKind::Ints, Ints{0, 0, 0, 0}},
          {"dilation", AttrKind::Ints, Ints{1, 1}},
          {"groups", AttrKind::Int, int64_t{1}}};
}

std::vector<AttrSpec> conv2d_attrs() {
  std::vector<AttrSpec> attrs = conv_attrs();
  attrs.push_back(epilogue::act_attr());
  attrs.push_back(epilogue::keep_pre_attr());
  return attrs;
}

std::vector<AttrSpec> conv_attrs_plus(const std::string& name) {
  std::vector<AttrSpec> attrs = conv_attrs();
  attrs.push_back({name, AttrKind::Ints, std::nullopt});
  return attrs;
}

std::vector<AttrSpec> conv_bwd_data_attrs() {
  std::vector<AttrSpec> attrs = conv_attrs_plus("input_hw");
  attrs.push_back(epilogue::gate_act_attr());
  return attrs;
}

// ---- lowering: attributes <-> instruction fields -----------------------------------------

void encode_conv(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.ints("stride", lower::kStrideFields);
  w.ints("pads", lower::kPadFields);
  w.ints("dilation", {Field::DilationH, Field::DilationW});
  w.uint(Field::Groups, "groups", op.attrs.i("groups"));
  w.act();
  if (inst.has_field(Field::GateAct) && op.attrs.has("gate_act"))
    w.enumerated(Field::GateAct, "gate_act");
}

void decode_conv(const Instruction& inst, ir::Attrs& a) {
  a.set("stride", field_ints(inst, lower::kStrideFields));
  a.set("pads", field_ints(inst, lower::kPadFields));
  a.set("dilation", field_ints(inst, {Field::DilationH, Field::DilationW}));
  a.set("groups", int64_t{inst.u(Field::Groups)});
  if (inst.has_field(Field::Act)) a.set("act", field_enum_name(inst, Field::Act));
  if (inst.has_slot(Slot::Pre)) a.set("keep_pre", int64_t{inst.operand(Slot::Pre).has_value()});
}

}  // namespace

void register_conv_ops(OpRegistry& r) {
  const SlotBinding x{"x", Slot::X}, dy{"dy", Slot::Dy}, dx{"dx", Slot::Dx}, w{"w", Slot::W},
      bias{"bias", Slot::Bias}, residual{"residual", Slot::Residual}, gate{"gate", Slot::Gate};
  add_op(r,
         {OpType::Conv2d,
          FusionClass::Pe,
          {{"x"}, {"w"}, {"bias", true}, {"residual", true}},
          {"y", "pre"},
          conv2d_attrs(),
          infer_conv2d,
          backward_conv2d,
          kernel_conv2d,
          "2-D convolution (cross-correlation, as in PyTorch): x [N,C,H,W], w [K,C/groups,R,S], "
          "optional bias [K] -> y [N,K,P,Q]. stride [sh,sw], pads [top,left,bottom,right], "
          "dilation [dh,dw]; channels split into `groups` independent groups (groups = C = K is "
          "depthwise). Epilogue: y = act(conv + bias + residual) with an optional residual "
          "[N,K,P,Q] and any act of the ISA (relu, relu6, sigmoid, ...); with keep_pre=1 the "
          "act's input is also written as pre [N,K,P,Q]. Not differentiable with an act."},
         {OpType::Conv2d,
          Opcode::Conv2d,
          {x, w, bias, residual},
          {{"y", Slot::Y}, {"pre", Slot::Pre}},
          false,
          encode_conv,
          decode_conv,
          always});
  add_op(r,
         {OpType::Conv2dBwdData,
          FusionClass::Pe,
          {{"dy"}, {"w"}, {"residual", true}, {"gate", true}},
          {"dx"},
          conv_bwd_data_attrs(),
          infer_conv2d_bwd_data,
          nullptr,
          kernel_conv2d_bwd_data,
          "Gradient of conv2d with respect to its input (a transposed convolution): dy [N,K,P,Q], "
          "w [K,C/groups,R,S] -> dx [N,C,H,W]. Attributes of the forward conv2d, plus input_hw "
          "[H,W] (with stride > 1 several input sizes give the same output size). Epilogue: "
          "dx = conv_t + residual, then kept where gate > 0, or with gate_act another "
          "activation's backward, dx * act'(gate) (residual and gate optional, of dx's shape)."},
         {OpType::Conv2dBwdData,
          Opcode::Conv2dBwdData,
          {dy, w, residual, gate},
          {dx},
          false,
          encode_conv,
          [](const Instruction& inst, ir::Attrs& a) {
            decode_conv(inst, a);
            a.set("input_hw", plane_of(inst, Slot::Dx));
            a.set("gate_act", field_enum_name(inst, Field::GateAct));
          },
          always});
  add_op(r,
         {OpType::Conv2dBwdWeight,
          FusionClass::Pe,
          {{"x"}, {"dy"}, {"residual", true}},
          {"dw"},
          conv_attrs_plus("kernel_hw"),
          infer_conv2d_bwd_weight,
          nullptr,
          kernel_conv2d_bwd_weight,
          "Gradient of conv2d with respect to its filters: x [N,C,H,W], dy [N,K,P,Q] -> dw "
          "[K,C/groups,R,S], summed over the batch. Attributes of the forward conv2d, plus "
          "kernel_hw [R,S]. Epilogue: dw = sum + residual (optional, of dw's shape), for a "
          "weight whose gradients add up."},
         {OpType::Conv2dBwdWeight,
          Opcode::Conv2dBwdWeight,
          {x, dy, residual},
          {{"dw", Slot::Dw}},
          false,
          encode_conv,
          [](const Instruction& inst, ir::Attrs& a) {
            decode_conv(inst, a);
            a.set("kernel_hw", plane_of(inst, Slot::Dw));
          },
          always});
}

}  // namespace s2::ir
