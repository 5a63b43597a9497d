#include "isa/encoding/isa_table.h"

#include "isa/common/errors.h"

namespace s2::isa {
namespace {

constexpr int64_t S2_REQUIRED = -1;

// The short names isa.def writes operand lists and field lists with.
namespace sig {
#define S2_SLOT(Id, name, meaning) [[maybe_unused]] constexpr Slot Id = Slot::Id;
#include "isa/encoding/isa.def"
#define S2_FIELD(Id, name, bits, Kind, EnumSet, default_value, min_value, meaning) \
  [[maybe_unused]] constexpr Field Id = Field::Id;
#include "isa/encoding/isa.def"

struct AccessSpec {
  Access access;
  bool optional;
};
[[maybe_unused]] constexpr AccessSpec In{Access::In, false}, Out{Access::Out, false},
    InOut{Access::InOut, false}, OptIn{Access::In, true}, OptOut{Access::Out, true},
    OptInOut{Access::InOut, true};
[[maybe_unused]] constexpr DTypeReq F32 = DTypeReq::F32, Float = DTypeReq::Float,
                                    I32 = DTypeReq::I32, U8 = DTypeReq::U8, Any = DTypeReq::Any;

struct OperandEntry {
  Slot slot;
  AccessSpec spec;
  unsigned rank;
  DTypeReq dtype;
};

std::vector<OpcodeInfo> opcodes_as_written() {
  std::vector<OpcodeInfo> table;
#define S2_OPERANDS(...)      \
  std::vector<OperandEntry> { \
    __VA_ARGS__               \
  }
#define S2_FIELDS(...) \
  std::vector<Field> { \
    __VA_ARGS__        \
  }
#define S2_OPCODE(Id, code, mnemonic, UnitId, summary, operands, fields)                          \
  {                                                                                               \
    std::vector<OperandSig> sigs;                                                                 \
    for (const OperandEntry& e : operands)                                                        \
      sigs.push_back({e.slot, e.spec.access, e.spec.optional, e.rank, e.dtype});                  \
    table.push_back({Opcode::Id, code, mnemonic, Unit::UnitId, summary, sigs, fields, {}, 0, 0}); \
  }
#include "isa/encoding/isa.def"
#undef S2_OPERANDS
#undef S2_FIELDS
  return table;
}
}  // namespace sig

// Packs fields in order from bit 0 of the first field word; a field that does not fit in the
// rest of a word starts the next one.
std::vector<FieldPlacement> place_fields(const std::vector<Field>& fields, unsigned* words) {
  std::vector<FieldPlacement> placement;
  unsigned word = kHeaderWords;
  unsigned bit = 0;
  for (Field f : fields) {
    const unsigned bits = field_info(f).bits;
    if (bit + bits > 32) {
      ++word;
      bit = 0;
    }
    placement.push_back({f, word, bit});
    bit += bits;
  }
  *words = fields.empty() ? 0 : word - kHeaderWords + 1;
  return placement;
}

std::vector<OpcodeInfo> build_opcode_table() {
  std::vector<OpcodeInfo> table = sig::opcodes_as_written();
  for (OpcodeInfo& info : table) {
    S2_CHECK(info.operands.size() <= kMaxOperands,
             std::string(info.mnemonic) + " lists " + std::to_string(info.operands.size()) +
                 " operands; the presence mask holds " + std::to_string(kMaxOperands));
    info.placement = place_fields(info.fields, &info.field_words);
  }
#define S2_FIELDS_SINCE(Id, version) \
  for (OpcodeInfo & info : table)    \
    if (info.id == Opcode::Id) info.fields_since = version;
#include "isa/encoding/isa.def"
  return table;
}

std::vector<FieldInfo> build_field_table() {
  std::vector<FieldInfo> table;
  auto default_of = [](int64_t v) -> std::optional<uint32_t> {
    if (v == S2_REQUIRED) return std::nullopt;
    return static_cast<uint32_t>(v);
  };
#define S2_FIELD(Id, name, bits, Kind, Set, default_value, min_value, meaning) \
  table.push_back({Field::Id, name, bits, FieldKind::Kind, EnumSet::Set,       \
                   default_of(static_cast<int64_t>(default_value)), min_value, meaning});
#include "isa/encoding/isa.def"
  return table;
}

std::vector<EnumValue> build_enum_values(EnumSet wanted) {
  std::vector<EnumValue> values;
#define S2_ENUM(Set, Id, value, name, meaning) \
  if (EnumSet::Set == wanted) values.push_back({value, name, meaning});
#include "isa/encoding/isa.def"
  return values;
}

}  // namespace

const std::vector<OpcodeInfo>& opcode_table() {
  static const std::vector<OpcodeInfo> table = build_opcode_table();
  return table;
}

const OpcodeInfo* find_opcode(uint8_t code) {
  for (const OpcodeInfo& info : opcode_table())
    if (info.code == code) return &info;
  return nullptr;
}

const OpcodeInfo* find_opcode(std::string_view mnemonic) {
  for (const OpcodeInfo& info : opcode_table())
    if (info.mnemonic == mnemonic) return &info;
  return nullptr;
}

const OpcodeInfo& opcode_info(Opcode op) {
  const OpcodeInfo* info = find_opcode(static_cast<uint8_t>(op));
  S2_CHECK(info != nullptr, "opcode_info: opcode " + std::to_string(static_cast<unsigned>(op)) +
                                " is not in the table");
  return *info;
}

const std::vector<FieldInfo>& field_table() {
  static const std::vector<FieldInfo> table = build_field_table();
  return table;
}

const FieldInfo& field_info(Field field) {
  const auto index = static_cast<size_t>(field);
  S2_CHECK(index < kNumFields, "field_info: field index out of range");
  return field_table()[index];
}

const std::vector<SlotInfo>& slot_table() {
  static const std::vector<SlotInfo> table = [] {
    std::vector<SlotInfo> t;
#define S2_SLOT(Id, name, meaning) t.push_back({Slot::Id, name, meaning});
#include "isa/encoding/isa.def"
    return t;
  }();
  return table;
}

const SlotInfo& slot_info(Slot slot) {
  const auto index = static_cast<size_t>(slot);
  S2_CHECK(index < kNumSlots, "slot_info: slot index out of range");
  return slot_table()[index];
}

const std::vector<EnumValue>& enum_values(EnumSet set) {
  static const std::vector<EnumValue> none;
  static const std::vector<EnumValue> activation = build_enum_values(EnumSet::Activation);
  static const std::vector<EnumValue> eltwise = build_enum_values(EnumSet::EltwiseOp);
  static const std::vector<EnumValue> reduce = build_enum_values(EnumSet::ReduceOp);
  static const std::vector<EnumValue> loss = build_enum_values(EnumSet::LossReduction);
  static const std::vector<EnumValue> gate_act = build_enum_values(EnumSet::GateAct);
  switch (set) {
    case EnumSet::None:
      return none;
    case EnumSet::Activation:
      return activation;
    case EnumSet::EltwiseOp:
      return eltwise;
    case EnumSet::ReduceOp:
      return reduce;
    case EnumSet::LossReduction:
      return loss;
    case EnumSet::GateAct:
      return gate_act;
  }
  throw InternalError("enum_values: unknown enum set");
}

std::string_view enum_name(EnumSet set, uint32_t value) {
  for (const EnumValue& v : enum_values(set))
    if (v.value == value) return v.name;
  return "?";
}

std::string_view enum_set_name(EnumSet set) {
  switch (set) {
    case EnumSet::None:
      return "none";
    case EnumSet::Activation:
      return "activation";
    case EnumSet::EltwiseOp:
      return "eltwise op";
    case EnumSet::ReduceOp:
      return "reduce op";
    case EnumSet::LossReduction:
      return "loss reduction";
    case EnumSet::GateAct:
      return "gate activation";
  }
  throw InternalError("enum_set_name: unknown enum set");
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
#define S2_DTYPE(Id, code, name, bytes) \
  case DType::Id:                       \
    return name;
#include "isa/encoding/isa.def"
  }
  throw InternalError("dtype_name: unknown dtype");
}

unsigned dtype_bytes(DType dtype) {
  switch (dtype) {
#define S2_DTYPE(Id, code, name, bytes) \
  case DType::Id:                       \
    return bytes;
#include "isa/encoding/isa.def"
  }
  throw InternalError("dtype_bytes: unknown dtype");
}

std::optional<DType> dtype_from_code(uint32_t code) {
#define S2_DTYPE(Id, value, name, bytes) \
  if (code == (value)) return DType::Id;
#include "isa/encoding/isa.def"
  return std::nullopt;
}

std::optional<DType> dtype_from_name(std::string_view text) {
#define S2_DTYPE(Id, value, name, bytes) \
  if (text == (name)) return DType::Id;
#include "isa/encoding/isa.def"
  return std::nullopt;
}

bool dtype_allowed(DTypeReq requirement, DType dtype) {
  switch (requirement) {
    case DTypeReq::F32:
      return dtype == DType::F32;
    case DTypeReq::Float:
      return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
    case DTypeReq::I32:
      return dtype == DType::I32;
    case DTypeReq::U8:
      return dtype == DType::U8;
    case DTypeReq::Any:
      return true;
  }
  return false;
}

std::string_view dtype_req_name(DTypeReq requirement) {
  switch (requirement) {
    case DTypeReq::F32:
      return "f32";
    case DTypeReq::Float:
      return "f32, bf16 or f16";
    case DTypeReq::I32:
      return "i32";
    case DTypeReq::U8:
      return "u8";
    case DTypeReq::Any:
      return "any";
  }
  throw InternalError("dtype_req_name: unknown requirement");
}

std::string_view access_name(Access access) {
  switch (access) {
    case Access::In:
      return "in";
    case Access::Out:
      return "out";
    case Access::InOut:
      return "inout";
  }
  throw InternalError("access_name: unknown access");
}

std::string_view field_kind_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::UInt:
      return "uint";
    case FieldKind::Int:
      return "int";
    case FieldKind::Flag:
      return "flag";
    case FieldKind::Float:
      return "f32";
    case FieldKind::Enum:
      return "enum";
  }
  throw InternalError("field_kind_name: unknown kind");
}

int operand_index(const OpcodeInfo& info, Slot slot) {
  for (size_t i = 0; i < info.operands.size(); ++i)
    if (info.operands[i].slot == slot) return static_cast<int>(i);
  return -1;
}

int field_index(const OpcodeInfo& info, Field field) {
  for (size_t i = 0; i < info.fields.size(); ++i)
    if (info.fields[i] == field) return static_cast<int>(i);
  return -1;
}

}  // namespace s2::isa
