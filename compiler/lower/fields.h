#pragma once
// Moving values between Graph-IR attributes and S2Train instruction fields, both ways.
//
// FieldWriter is the lowering's side: every value is range-checked against the field's width
// in isa.def, and one that does not fit is a UserError naming the op, the attribute and the
// field (a stride of 300 cannot be encoded in 8 bits; silently truncating it would compute
// something else). The read side (the stream checker's) returns the attribute values the
// registry's kernels expect.

#include <initializer_list>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/encoding/instruction.h"

namespace s2::lower {

class FieldWriter {
 public:
  FieldWriter(const ir::Op& op, isa::Instruction& inst) : op_(op), inst_(inst) {}

  // An unsigned field from a value taken from attribute `attr`.
  void uint(isa::Field field, const std::string& attr, int64_t value);
  // An ints attribute, one entry per field, in order (stride -> stride_h, stride_w).
  void ints(const std::string& attr, std::initializer_list<isa::Field> fields);
  // An int attribute into a signed 32-bit (Int) field.
  void i32(isa::Field field, const std::string& attr);
  // An int attribute that must be 0 or 1.
  void flag(isa::Field field, const std::string& attr);
  // A float attribute, rounded to the f32 the PPU computes with.
  void f32(isa::Field field, const std::string& attr);
  // A string attribute naming a value of the field's enumeration.
  void enumerated(isa::Field field, const std::string& attr);
  // The epilogue activation: attribute `act` when the op has it ("none" otherwise). An
  // activation on an instruction without an `act` field is refused.
  void act();

  [[noreturn]] void fail(const std::string& problem) const;

 private:
  const ir::Op& op_;
  isa::Instruction& inst_;
};

// The read side.
std::vector<int64_t> field_ints(const isa::Instruction& inst,
                                std::initializer_list<isa::Field> fields);
// The name of an enumerated field's value ("relu", "mean", ...).
std::string field_enum_name(const isa::Instruction& inst, isa::Field field);
// A signed (Int) field.
inline int64_t field_i64(const isa::Instruction& inst, isa::Field field) {
  return inst.i(field);
}
// An f32 field widened to the double an attribute holds.
double field_f64(const isa::Instruction& inst, isa::Field field);

// "op 'layer1.0.conv1' (conv2d)": how lowering errors name an op.
std::string op_label(const ir::Op& op);

// ---- pieces the op families' lowerings share (compiler/ops/*.cpp) -------------------------

inline constexpr std::initializer_list<isa::Field> kStrideFields = {isa::Field::StrideH,
                                                                    isa::Field::StrideW};
inline constexpr std::initializer_list<isa::Field> kPadFields = {
    isa::Field::PadTop, isa::Field::PadLeft, isa::Field::PadBottom, isa::Field::PadRight};

// [H, W] of a rank-4 operand: the backward ops' input_hw and kernel_hw.
std::vector<int64_t> plane_of(const isa::Instruction& inst, isa::Slot slot);

// An eltwise instruction's `op` field, both ways.
template <isa::EltwiseOp kOp>
void encode_eltwise(const ir::Op&, isa::Instruction& inst) {
  inst.set_raw(isa::Field::Op, static_cast<uint32_t>(kOp));
}
template <isa::EltwiseOp kOp>
bool is_eltwise(const isa::Instruction& inst) {
  return inst.as<isa::EltwiseOp>(isa::Field::Op) == kOp;
}

// For ops whose instruction has no attribute fields, and opcodes that only one op lowers to.
inline void encode_nothing(const ir::Op&, isa::Instruction&) {}
inline void decode_nothing(const isa::Instruction&, ir::Attrs&) {}
inline bool always(const isa::Instruction&) {
  return true;
}

}  // namespace s2::lower
