#pragma once
// What the op families write their lowerings with (compiler/ops/*.cpp, the `lowering` of each
// OpSchema): the instruction's names from isa/ and the attribute <-> field helpers of
// compiler/lower/fields.h, brought into s2::ir so a family file reads like the table it is.
// Only the family files include this.

#include "compiler/lower/fields.h"
#include "compiler/lower/op_lowering.h"
#include "isa/encoding/instruction.h"

namespace s2::ir {

using isa::Field;
using isa::Instruction;
using isa::Opcode;
using isa::Slot;
using lower::always;
using lower::decode_nothing;
using lower::encode_nothing;
using lower::field_enum_name;
using lower::field_f64;
using lower::field_i64;
using lower::field_ints;
using lower::FieldWriter;
using lower::plane_of;
using lower::SlotBinding;

}  // namespace s2::ir
