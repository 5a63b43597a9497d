#include "simulator/functional/eltwise.h"

#include <string>

#include "isa/common/errors.h"
#include "isa/numerics/fp32.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
LaneOp lane_op(isa::EltwiseOp op) {
  using E = isa::EltwiseOp;
  switch (op) {
    case E::Add:
      return LaneOp::Add;
    case E::Sub:
      return LaneOp::Sub;
    case E::Mul:
      return LaneOp::Mul;
    case E::Max:
      return LaneOp::Max;
    case E::Min:
      return LaneOp::Min;
    case E::Relu:
      return LaneOp::Relu;
    case E::ReluBwd:
      return LaneOp::ReluBwd;
    case E::Act:
      return LaneOp::Act;
    case E::ActBwd:
      return LaneOp::ActBwd;
    case E::Axpby:
      return LaneOp::Axpby;
    case E::Scale:
      return LaneOp::ScaleShift;
  }
  throw UserError("eltwise: op code " + std::to_string(static_cast<unsigned>(op)) +
                  " is not an EltwiseOp");
}

std::vector<float> eltwise(PpuLanes& ppu, isa::EltwiseOp op, const std::vector<float>& a,
                           const std::vector<float>& b, float scale_a, float scale_b,
                           isa::Activation act, const StreamTypes& types) {
  using isa::is_unary;
  S2_CHECK(is_unary(op) || b.size() == a.size(),
           "functional eltwise: operand b has " + std::to_string(b.size()) + " elements, a has " +
               std::to_string(a.size()));
  LanePass pass;
  pass.op = lane_op(op);
  pass.elements = a.size();
  pass.alpha = numerics::load(scale_a);
  pass.beta = numerics::load(scale_b);
  pass.act = act;
  pass.in_type[0] = types.a;
  pass.in_type[1] = types.b;
  pass.out_type[0] = types.y;
  std::vector<float> y(a.size());
  ppu.run(pass, a.data(), is_unary(op) ? nullptr : b.data(), nullptr, nullptr, y.data(), nullptr);
  return y;
}

void run_eltwise(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  using isa::is_unary;
  const auto op = inst.as<isa::EltwiseOp>(isa::Field::Op);
  const std::vector<float> a = ops.f32(isa::Slot::A);
  std::vector<float> b;
  if (!is_unary(op)) {
    if (!ops.has(isa::Slot::B)) ops.fail("this op needs operand 'b'");
    b = ops.f32(isa::Slot::B);
  }
  if (a.size() != ops.desc(isa::Slot::Y).elements() || (!is_unary(op) && b.size() != a.size()))
    ops.fail("operands a, b and y must have equal element counts");
  const StreamTypes types{ops.desc(isa::Slot::A).dtype,
                          is_unary(op) ? isa::DType::F32 : ops.desc(isa::Slot::B).dtype,
                          ops.desc(isa::Slot::Y).dtype};
  ops.write(isa::Slot::Y,
            eltwise(dp.ppu, op, a, b, inst.f32(isa::Field::ScaleA), inst.f32(isa::Field::ScaleB),
                    inst.as<isa::Activation>(isa::Field::Act), types));
}

void run_cast(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const std::vector<float> x = ops.f32(isa::Slot::X);  // as many as y (semantics table)
  LanePass pass;
  pass.op = LaneOp::Cast;
  pass.elements = x.size();
  pass.in_type[0] = ops.desc(isa::Slot::X).dtype;
  pass.out_type[0] = ops.desc(isa::Slot::Y).dtype;
  std::vector<float> y(x.size());
  dp.ppu.run(pass, x.data(), nullptr, nullptr, nullptr, y.data(), nullptr);
  ops.write(isa::Slot::Y, y);
}

}  // namespace s2::sim::functional
