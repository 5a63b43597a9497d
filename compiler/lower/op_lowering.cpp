#include "compiler/lower/op_lowering.h"

#include "compiler/lower/fields.h"

namespace s2::lower {
namespace {

using isa::Field;
using isa::Instruction;
using isa::Opcode;
using isa::Slot;
using Ints = std::vector<int64_t>;

// ---- shared field groups -------------------------------------------------------------------

constexpr std::initializer_list<Field> kStride = {Field::StrideH, Field::StrideW};
constexpr std::initializer_list<Field> kPads = {Field::PadTop, Field::PadLeft, Field::PadBottom,
                                                Field::PadRight};

void encode_conv(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.ints("stride", kStride);
  w.ints("pads", kPads);
  w.ints("dilation", {Field::DilationH, Field::DilationW});
  w.uint(Field::Groups, "groups", op.attrs.i("groups"));
  w.act();
}

void decode_conv(const Instruction& inst, ir::Attrs& a) {
  a.set("stride", field_ints(inst, kStride));
  a.set("pads", field_ints(inst, kPads));
  a.set("dilation", field_ints(inst, {Field::DilationH, Field::DilationW}));
  a.set("groups", int64_t{inst.u(Field::Groups)});
  if (inst.has_field(Field::Act)) a.set("act", field_enum_name(inst, Field::Act));
}

// [H, W] of a rank-4 operand: the backward ops' input_hw and kernel_hw.
Ints plane_of(const Instruction& inst, Slot slot) {
  const isa::TensorDesc& d = inst.get(slot);
  return {d.shape[2], d.shape[3]};
}

void encode_pool(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.ints("kernel", {Field::KernelH, Field::KernelW});
  w.ints("stride", kStride);
  w.ints("pads", kPads);
  w.flag(Field::CeilMode, "ceil_mode");
  if (inst.has_field(Field::CountIncludePad)) w.flag(Field::CountIncludePad, "count_include_pad");
}

void decode_pool(const Instruction& inst, ir::Attrs& a) {
  a.set("kernel", field_ints(inst, {Field::KernelH, Field::KernelW}));
  a.set("stride", field_ints(inst, kStride));
  a.set("pads", field_ints(inst, kPads));
  a.set("ceil_mode", int64_t{inst.u(Field::CeilMode)});
  if (inst.has_field(Field::CountIncludePad))
    a.set("count_include_pad", int64_t{inst.u(Field::CountIncludePad)});
  if (inst.has_slot(Slot::Dx)) a.set("input_hw", plane_of(inst, Slot::Dx));
}

// ---- eltwise -------------------------------------------------------------------------------

template <isa::EltwiseOp kOp>
void encode_eltwise(const ir::Op&, Instruction& inst) {
  inst.set_raw(Field::Op, static_cast<uint32_t>(kOp));
}

template <isa::EltwiseOp kOp>
bool is_eltwise(const Instruction& inst) {
  return inst.as<isa::EltwiseOp>(Field::Op) == kOp;
}

void decode_nothing(const Instruction&, ir::Attrs&) {}
bool always(const Instruction&) {
  return true;
}

void encode_scale(const ir::Op& op, Instruction& inst) {
  encode_eltwise<isa::EltwiseOp::Scale>(op, inst);
  FieldWriter w(op, inst);
  w.f32(Field::ScaleA, "alpha");
  w.f32(Field::ScaleB, "beta");
}

void decode_scale(const Instruction& inst, ir::Attrs& a) {
  a.set("alpha", field_f64(inst, Field::ScaleA));
  a.set("beta", field_f64(inst, Field::ScaleB));
}

// ---- the rest ------------------------------------------------------------------------------

void encode_gemm(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.flag(Field::TransA, "trans_a");
  w.flag(Field::TransB, "trans_b");
  w.act();
}

void decode_gemm(const Instruction& inst, ir::Attrs& a) {
  a.set("trans_a", int64_t{inst.u(Field::TransA)});
  a.set("trans_b", int64_t{inst.u(Field::TransB)});
  a.set("act", field_enum_name(inst, Field::Act));
}

void encode_bn(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Eps, "eps");
  w.f32(Field::BnMomentum, "momentum");
  w.act();
}

void decode_bn(const Instruction& inst, ir::Attrs& a) {
  a.set("eps", field_f64(inst, Field::Eps));
  a.set("momentum", field_f64(inst, Field::BnMomentum));
  a.set("act", field_enum_name(inst, Field::Act));
}

// Axis i of x is bit i of the mask (bit 0 = outermost); x has rank 1..4, so it fits.
void encode_reduce_sum(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  inst.set_raw(Field::Reduce, static_cast<uint32_t>(isa::ReduceOp::Sum));
  int64_t mask = 0;
  for (int64_t axis : op.attrs.ints("axes")) {
    if (axis < 0 || axis >= 4) w.fail("axis " + std::to_string(axis) + " is past rank 4");
    mask |= int64_t{1} << axis;
  }
  w.uint(Field::Axes, "axes", mask);
}

void decode_reduce_sum(const Instruction& inst, ir::Attrs& a) {
  Ints axes;
  for (int64_t axis = 0; axis < 4; ++axis)
    if ((inst.u(Field::Axes) >> axis) & 1u) axes.push_back(axis);
  a.set("axes", axes);
  a.set("keepdims", int64_t{0});  // the output's element count is the same either way
}

bool is_reduce_sum(const Instruction& inst) {
  return inst.as<isa::ReduceOp>(Field::Reduce) == isa::ReduceOp::Sum;
}

void encode_loss(const ir::Op& op, Instruction& inst) {
  FieldWriter(op, inst).enumerated(Field::Reduction, "reduction");
}

void decode_loss(const Instruction& inst, ir::Attrs& a) {
  a.set("reduction", field_enum_name(inst, Field::Reduction));
}

void encode_sgd(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Lr, "lr");
  w.f32(Field::Momentum, "momentum");
  w.f32(Field::WeightDecay, "weight_decay");
}

void decode_sgd(const Instruction& inst, ir::Attrs& a) {
  a.set("lr", field_f64(inst, Field::Lr));
  a.set("momentum", field_f64(inst, Field::Momentum));
  a.set("weight_decay", field_f64(inst, Field::WeightDecay));
}

std::vector<OpLowering> build_table() {
  using ir::OpType;
  const SlotBinding x{"x", Slot::X}, dy{"dy", Slot::Dy}, dx{"dx", Slot::Dx}, w{"w", Slot::W},
      bias{"bias", Slot::Bias}, residual{"residual", Slot::Residual}, gate{"gate", Slot::Gate};
  std::vector<OpLowering> t;
  auto add = [&t](OpLowering entry) { t.push_back(std::move(entry)); };
  add({OpType::Conv2d,
       Opcode::Conv2d,
       {x, w, bias, residual},
       {{"y", Slot::Y}},
       false,
       encode_conv,
       decode_conv,
       always});
  add({OpType::Conv2dBwdData,
       Opcode::Conv2dBwdData,
       {dy, w, residual, gate},
       {dx},
       false,
       encode_conv,
       [](const Instruction& inst, ir::Attrs& a) {
         decode_conv(inst, a);
         a.set("input_hw", plane_of(inst, Slot::Dx));
       },
       always});
  add({OpType::Conv2dBwdWeight,
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
  add({OpType::Gemm,
       Opcode::Gemm,
       {{"a", Slot::A}, {"b", Slot::B}, bias, residual, gate},
       {{"y", Slot::Y}},
       false,
       encode_gemm,
       decode_gemm,
       always});
  add({OpType::BatchNorm,
       Opcode::BnFwd,
       {x,
        {"gamma", Slot::Gamma},
        {"beta", Slot::Beta},
        {"running_mean", Slot::RunningMean, Slot::Mean},
        {"running_var", Slot::RunningVar, Slot::Mean}},
       {{"y", Slot::Y},
        {"saved_mean", Slot::Mean},
        {"saved_invstd", Slot::InvStd},
        {"running_mean_out", Slot::RunningMean, Slot::Mean},
        {"running_var_out", Slot::RunningVar, Slot::Mean}},
       true,
       encode_bn,
       decode_bn,
       always});
  add({OpType::BatchNormBwd,
       Opcode::BnBwd,
       {dy,
        x,
        {"gamma", Slot::Gamma},
        {"saved_mean", Slot::Mean},
        {"saved_invstd", Slot::InvStd},
        gate},
       {dx, {"dgamma", Slot::DGamma}, {"dbeta", Slot::DBeta}},
       true,
       [](const ir::Op& op, Instruction& inst) { FieldWriter(op, inst).act(); },
       decode_nothing,
       always});
  const SlotBinding a{"a", Slot::A}, b{"b", Slot::B}, y{"y", Slot::Y};
  using E = isa::EltwiseOp;
  add({OpType::Relu,
       Opcode::Eltwise,
       {{"x", Slot::A}},
       {y},
       false,
       encode_eltwise<E::Relu>,
       decode_nothing,
       is_eltwise<E::Relu>});
  add({OpType::ReluBwd,
       Opcode::Eltwise,
       {{"dy", Slot::A}, {"y", Slot::B}},
       {{"dx", Slot::Y}},
       false,
       encode_eltwise<E::ReluBwd>,
       decode_nothing,
       is_eltwise<E::ReluBwd>});
  add({OpType::Add,
       Opcode::Eltwise,
       {a, b},
       {y},
       false,
       encode_eltwise<E::Add>,
       decode_nothing,
       is_eltwise<E::Add>});
  add({OpType::Mul,
       Opcode::Eltwise,
       {a, b},
       {y},
       false,
       encode_eltwise<E::Mul>,
       decode_nothing,
       is_eltwise<E::Mul>});
  add({OpType::Scale,
       Opcode::Eltwise,
       {{"x", Slot::A}},
       {y},
       false,
       encode_scale,
       decode_scale,
       is_eltwise<E::Scale>});
  add({OpType::MaxPool2d,
       Opcode::MaxPoolFwd,
       {x},
       {y, {"indices", Slot::Idx, Slot::Y}},
       false,
       encode_pool,
       decode_pool,
       always});
  add({OpType::MaxPool2dBwd,
       Opcode::MaxPoolBwd,
       {dy, {"indices", Slot::Idx}},
       {dx},
       false,
       encode_pool,
       decode_pool,
       always});
  add({OpType::AvgPool2d, Opcode::AvgPoolFwd, {x}, {y}, false, encode_pool, decode_pool, always});
  add({OpType::AvgPool2dBwd,
       Opcode::AvgPoolBwd,
       {dy},
       {dx},
       false,
       encode_pool,
       decode_pool,
       always});
  add({OpType::ReduceSum,
       Opcode::Reduce,
       {x},
       {y},
       false,
       encode_reduce_sum,
       decode_reduce_sum,
       is_reduce_sum});
  const SlotBinding logits{"logits", Slot::Logits}, labels{"labels", Slot::Labels};
  add({OpType::SoftmaxCe,
       Opcode::SoftmaxCe,
       {logits, labels},
       {{"loss", Slot::Loss}},
       false,
       encode_loss,
       decode_loss,
       [](const Instruction& inst) { return inst.operand(Slot::Loss).has_value(); }});
  // The instruction has no operand for an incoming loss gradient (`dloss`): an op that has
  // one is refused by the lowering.
  add({OpType::SoftmaxCeBwd,
       Opcode::SoftmaxCe,
       {logits, labels},
       {{"dlogits", Slot::DLogits}},
       false,
       encode_loss,
       decode_loss,
       [](const Instruction& inst) { return inst.operand(Slot::DLogits).has_value(); }});
  add({OpType::Sgd,
       Opcode::Sgd,
       {{"weight", Slot::Weight}, {"grad", Slot::Grad}, {"velocity", Slot::Velocity}},
       {{"weight_out", Slot::Weight}, {"velocity_out", Slot::Velocity}},
       false,
       encode_sgd,
       decode_sgd,
       always});
  return t;
}

const std::vector<OpLowering>& table() {
  static const std::vector<OpLowering> t = build_table();
  return t;
}

const SlotBinding* find_binding(const std::vector<SlotBinding>& list, const std::string& name) {
  for (const SlotBinding& b : list)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace

const SlotBinding* OpLowering::input(const std::string& name) const {
  return find_binding(inputs, name);
}

const SlotBinding* OpLowering::output(const std::string& name) const {
  return find_binding(outputs, name);
}

const OpLowering* find_lowering(ir::OpType type) {
  for (const OpLowering& entry : table())
    if (entry.type == type) return &entry;
  return nullptr;
}

std::vector<const OpLowering*> lowerings_of(const isa::Instruction& inst) {
  std::vector<const OpLowering*> found;
  for (const OpLowering& entry : table())
    if (entry.opcode == inst.opcode() && entry.matches(inst)) found.push_back(&entry);
  return found;
}

}  // namespace s2::lower
