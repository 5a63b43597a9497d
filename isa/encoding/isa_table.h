#pragma once
// Typed view of the instruction-set table in isa.def: the enums (generated from it) and the
// per-opcode signatures that the codec, the assembler, the validator and the docs walk.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace s2::isa {

enum class DType : uint8_t {
#define S2_DTYPE(Id, code, name, bytes) Id = code,
#include "isa/encoding/isa.def"
};

enum class Field : uint8_t {
#define S2_FIELD(Id, name, bits, Kind, EnumSet, default_value, min_value, meaning) Id,
#include "isa/encoding/isa.def"
  kCount
};
inline constexpr size_t kNumFields = static_cast<size_t>(Field::kCount);

enum class Slot : uint8_t {
#define S2_SLOT(Id, name, meaning) Id,
#include "isa/encoding/isa.def"
  kCount
};
inline constexpr size_t kNumSlots = static_cast<size_t>(Slot::kCount);

enum class Opcode : uint8_t {
#define S2_OPCODE(Id, code, mnemonic, Unit, summary, operands, fields) Id = code,
#include "isa/encoding/isa.def"
};

// The set an enumerated field draws its names from.
enum class EnumSet : uint8_t { None, Activation, EltwiseOp, ReduceOp, LossReduction, GateAct };

// Each enumerated set becomes an enum class of its own: S2_ONLY_<Set> keeps the entries of the
// set being declared and drops the others.
#define S2_ENUM(Set, Id, value, name, meaning) S2_ONLY_##Set(Id = value, )
#define S2_ONLY_Activation(...) __VA_ARGS__
#define S2_ONLY_EltwiseOp(...)
#define S2_ONLY_ReduceOp(...)
#define S2_ONLY_LossReduction(...)
#define S2_ONLY_GateAct(...)
enum class Activation : uint8_t {
#include "isa/encoding/isa.def"
};
#undef S2_ONLY_Activation
#undef S2_ONLY_EltwiseOp
#undef S2_ONLY_ReduceOp
#undef S2_ONLY_LossReduction
#undef S2_ONLY_GateAct
#define S2_ENUM(Set, Id, value, name, meaning) S2_ONLY_##Set(Id = value, )
#define S2_ONLY_Activation(...)
#define S2_ONLY_EltwiseOp(...) __VA_ARGS__
#define S2_ONLY_ReduceOp(...)
#define S2_ONLY_LossReduction(...)
#define S2_ONLY_GateAct(...)
enum class EltwiseOp : uint8_t {
#include "isa/encoding/isa.def"
};
#undef S2_ONLY_Activation
#undef S2_ONLY_EltwiseOp
#undef S2_ONLY_ReduceOp
#undef S2_ONLY_LossReduction
#undef S2_ONLY_GateAct
#define S2_ENUM(Set, Id, value, name, meaning) S2_ONLY_##Set(Id = value, )
#define S2_ONLY_Activation(...)
#define S2_ONLY_EltwiseOp(...)
#define S2_ONLY_ReduceOp(...) __VA_ARGS__
#define S2_ONLY_LossReduction(...)
#define S2_ONLY_GateAct(...)
enum class ReduceOp : uint8_t {
#include "isa/encoding/isa.def"
};
#undef S2_ONLY_Activation
#undef S2_ONLY_EltwiseOp
#undef S2_ONLY_ReduceOp
#undef S2_ONLY_LossReduction
#undef S2_ONLY_GateAct
#define S2_ENUM(Set, Id, value, name, meaning) S2_ONLY_##Set(Id = value, )
#define S2_ONLY_Activation(...)
#define S2_ONLY_EltwiseOp(...)
#define S2_ONLY_ReduceOp(...)
#define S2_ONLY_LossReduction(...) __VA_ARGS__
#define S2_ONLY_GateAct(...)
enum class LossReduction : uint8_t {
#include "isa/encoding/isa.def"
};
#undef S2_ONLY_Activation
#undef S2_ONLY_EltwiseOp
#undef S2_ONLY_ReduceOp
#undef S2_ONLY_LossReduction
#undef S2_ONLY_GateAct

#define S2_ENUM(Set, Id, value, name, meaning) S2_ONLY_##Set(Id = value, )
#define S2_ONLY_Activation(...)
#define S2_ONLY_EltwiseOp(...)
#define S2_ONLY_ReduceOp(...)
#define S2_ONLY_LossReduction(...)
#define S2_ONLY_GateAct(...) __VA_ARGS__
// The gate stage's function (field gate_act): the backward of an activation, numbered from
// relu = 0 so that a gate written before the field existed reads as relu's mask.
enum class GateAct : uint8_t {
#include "isa/encoding/isa.def"
};
#undef S2_ONLY_Activation
#undef S2_ONLY_EltwiseOp
#undef S2_ONLY_ReduceOp
#undef S2_ONLY_LossReduction
#undef S2_ONLY_GateAct

// Which hardware unit executes an instruction (S2_UNIT in isa.def).
enum class Unit : uint8_t {
#define S2_UNIT(Id, name, block, queued, meaning) Id,
#include "isa/encoding/isa.def"
};

struct UnitInfo {
  Unit id;
  std::string_view name;   // the ISA's name: "pe"
  std::string_view block;  // the accelerator's module: "pe_array"
  bool queued;             // has its own issue queue (false: the controller executes it)
  std::string_view meaning;
};

// Every unit, in isa.def order (= enum order).
inline constexpr std::array<UnitInfo, 0
#define S2_UNIT(Id, name, block, queued, meaning) +1
#include "isa/encoding/isa.def"
                            >
    kUnits{{
#define S2_UNIT(Id, name, block, queued, meaning) {Unit::Id, name, block, queued, meaning},
#include "isa/encoding/isa.def"
    }};
inline constexpr std::size_t kUnitCount = kUnits.size();

// The queued units (each a module with its own issue queue in the simulator), in isa.def order.
inline constexpr std::size_t kQueuedUnitCount = [] {
  std::size_t n = 0;
  for (const UnitInfo& u : kUnits)
    n += u.queued ? 1 : 0;
  return n;
}();
inline constexpr std::array<Unit, kQueuedUnitCount> kQueuedUnits = [] {
  std::array<Unit, kQueuedUnitCount> out{};
  std::size_t n = 0;
  for (const UnitInfo& u : kUnits)
    if (u.queued) out[n++] = u.id;
  return out;
}();

constexpr const UnitInfo& unit_info(Unit unit) {
  return kUnits[static_cast<std::size_t>(unit)];
}

enum class FieldKind : uint8_t { UInt, Int, Flag, Float, Enum };

// How an instruction uses an operand.
enum class Access : uint8_t { In, Out, InOut };

// Element-type requirement of an operand slot.
enum class DTypeReq : uint8_t { F32, Float, I32, U8, Any };

struct EnumValue {
  uint32_t value;
  std::string_view name;
  std::string_view meaning;
};

struct FieldInfo {
  Field id;
  std::string_view name;
  unsigned bits;
  FieldKind kind;
  EnumSet enum_set;
  std::optional<uint32_t> default_value;  // encoded value; nullopt: the field is required
  uint32_t min_value;                     // UInt fields only
  std::string_view meaning;
};

struct SlotInfo {
  Slot id;
  std::string_view name;
  std::string_view meaning;
};

struct OperandSig {
  Slot slot;
  Access access;
  bool optional;
  unsigned rank;  // 0: any rank from 1 to 4
  DTypeReq dtype;
};

// Where a field sits in an encoded instruction, derived from the field order.
struct FieldPlacement {
  Field field;
  unsigned word;  // index of the 32-bit word, counted from the start of the instruction
  unsigned bit;   // lowest bit inside that word
};

struct OpcodeInfo {
  Opcode id;
  uint8_t code;
  std::string_view mnemonic;
  Unit unit;
  std::string_view summary;
  std::vector<OperandSig> operands;
  std::vector<Field> fields;
  std::vector<FieldPlacement> placement;  // one per field, same order
  unsigned field_words;                   // words taken by the packed fields
  // The container format version from which the fields are encoded (S2_FIELDS_SINCE in
  // isa.def); 0: always. Older files encode no field words for this opcode.
  uint32_t fields_since = 0;
};

inline constexpr unsigned kHeaderWords = 2;
inline constexpr unsigned kDescriptorWords = 11;
inline constexpr unsigned kMaxRank = 4;
inline constexpr unsigned kMaxDeps = 255;
// The most operands an opcode may list: an encoded instruction marks the present ones in the
// 16-bit presence mask of its word 1.
inline constexpr unsigned kMaxOperands = 16;
inline constexpr unsigned kMaxInstructionWords = 0xffff;

// The whole table, in isa.def order.
const std::vector<OpcodeInfo>& opcode_table();
// nullptr when `code` is not an opcode.
const OpcodeInfo* find_opcode(uint8_t code);
const OpcodeInfo* find_opcode(std::string_view mnemonic);
const OpcodeInfo& opcode_info(Opcode op);

const std::vector<FieldInfo>& field_table();
const FieldInfo& field_info(Field field);
const std::vector<SlotInfo>& slot_table();
const SlotInfo& slot_info(Slot slot);

// Named values of an enumerated field's set, in value order.
const std::vector<EnumValue>& enum_values(EnumSet set);
std::string_view enum_set_name(EnumSet set);
// The eltwise ops without operand b.
inline bool is_unary(EltwiseOp op) {
  return op == EltwiseOp::Relu || op == EltwiseOp::Scale || op == EltwiseOp::Act;
}
// The eltwise ops that apply the instruction's `act` field.
inline bool uses_act(EltwiseOp op) {
  return op == EltwiseOp::Act || op == EltwiseOp::ActBwd;
}

// The name of `value` in `set`; "?" when the set has no such value.
std::string_view enum_name(EnumSet set, uint32_t value);
inline std::string_view activation_name(Activation act) {
  return enum_name(EnumSet::Activation, static_cast<uint32_t>(act));
}

std::string_view dtype_name(DType dtype);
unsigned dtype_bytes(DType dtype);
std::optional<DType> dtype_from_code(uint32_t code);
std::optional<DType> dtype_from_name(std::string_view name);
bool dtype_allowed(DTypeReq requirement, DType dtype);
std::string_view dtype_req_name(DTypeReq requirement);

inline std::string_view unit_name(Unit unit) {
  return unit_info(unit).name;
}
std::string_view access_name(Access access);
std::string_view field_kind_name(FieldKind kind);

// Index of `slot` in the opcode's operand list, or -1.
int operand_index(const OpcodeInfo& info, Slot slot);
// Index of `field` in the opcode's field list, or -1.
int field_index(const OpcodeInfo& info, Field field);

}  // namespace s2::isa
