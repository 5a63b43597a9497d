#include "simulator/functional/eltwise.h"

#include <string>

#include "isa/common/errors.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

template <typename Fn>
std::vector<float> binary(const std::vector<float>& a, const std::vector<float>& b, Fn fn) {
  std::vector<float> y(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    y[i] = fn(a[i], b[i]);
  return y;
}

template <typename Fn>
std::vector<float> unary(const std::vector<float>& a, Fn fn) {
  std::vector<float> y(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    y[i] = fn(a[i]);
  return y;
}

bool is_unary(isa::EltwiseOp op) {
  return op == isa::EltwiseOp::Relu || op == isa::EltwiseOp::Scale;
}

}  // namespace

std::vector<float> eltwise(isa::EltwiseOp op, const std::vector<float>& a,
                           const std::vector<float>& b, float scale_a, float scale_b) {
  using E = isa::EltwiseOp;
  internal_check(is_unary(op) || b.size() == a.size(),
                 "functional eltwise: operand b has " + std::to_string(b.size()) +
                     " elements, a has " + std::to_string(a.size()));
  switch (op) {
    case E::Add:
      return binary(a, b, [](float x, float y) { return x + y; });
    case E::Sub:
      return binary(a, b, [](float x, float y) { return x - y; });
    case E::Mul:
      return binary(a, b, [](float x, float y) { return x * y; });
    case E::Max:
      return binary(a, b, [](float x, float y) { return x != x || x > y ? x : y; });
    case E::Min:
      return binary(a, b, [](float x, float y) { return x != x || x < y ? x : y; });
    case E::Relu:
      return unary(a, [](float x) { return x > 0.0f ? x : 0.0f; });
    case E::ReluBwd:
      return binary(a, b, [](float dy, float y) { return y > 0.0f ? dy : 0.0f; });
    case E::Axpby:
      return binary(a, b, [=](float x, float y) { return scale_a * x + scale_b * y; });
    case E::Scale:
      return unary(a, [=](float x) { return scale_a * x + scale_b; });
  }
  throw UserError("eltwise: op code " + std::to_string(static_cast<unsigned>(op)) +
                  " is not an EltwiseOp");
}

void run_eltwise(const isa::Instruction& inst, DramImage& image) {
  Operands ops(inst, image);
  const auto op = inst.as<isa::EltwiseOp>(isa::Field::Op);
  const std::vector<float> a = ops.f32(isa::Slot::A);
  std::vector<float> b;
  if (!is_unary(op)) {
    if (!ops.has(isa::Slot::B)) ops.fail("this op needs operand 'b'");
    b = ops.f32(isa::Slot::B);
  }
  if (a.size() != ops.desc(isa::Slot::Y).elements() || (!is_unary(op) && b.size() != a.size()))
    ops.fail("operands a, b and y must have equal element counts");
  ops.write(isa::Slot::Y,
            eltwise(op, a, b, inst.f32(isa::Field::ScaleA), inst.f32(isa::Field::ScaleB)));
}

}  // namespace s2::sim::functional
