// Table-driven tests of the instruction encoding: every opcode in isa.def is round-tripped
// with random valid contents (a new opcode is covered without touching this file), the table's
// own invariants are checked, and each structural defect the decoder knows gets its message.

#include "isa/encoding/codec.h"

#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "isa/encoding/isa_table.h"

namespace s2::isa {
namespace {

using Rng = std::mt19937_64;

uint32_t uniform(Rng& rng, uint64_t lo, uint64_t hi) {
  return static_cast<uint32_t>(std::uniform_int_distribution<uint64_t>(lo, hi)(rng));
}

std::vector<DType> all_dtypes() {
  std::vector<DType> types;
  for (uint32_t c = 0; c < 16; ++c)
    if (const auto t = dtype_from_code(c)) types.push_back(*t);
  return types;
}

// Floats are arbitrary bit patterns; the special ones (NaN payloads, signed zero, infinities,
// subnormals) must survive the codec bit for bit.
uint32_t random_float_bits(Rng& rng) {
  static const uint32_t special[] = {0x7fc00000u, 0x7fc00001u, 0xffa5a5a5u, 0x7f800001u,
                                     0x80000000u, 0x7f800000u, 0xff800000u, 0x00000001u};
  if (uniform(rng, 0, 3) == 0) return special[uniform(rng, 0, std::size(special) - 1)];
  return uniform(rng, 0, 0xffffffffu);
}

uint32_t random_field_value(Rng& rng, const FieldInfo& f) {
  switch (f.kind) {
    case FieldKind::UInt:
      return uniform(rng, f.min_value, (uint64_t{1} << f.bits) - 1);
    case FieldKind::Int:
      return uniform(rng, 0, 0xffffffffu);  // every bit pattern is a value
    case FieldKind::Flag:
      return uniform(rng, 0, 1);
    case FieldKind::Float:
      return random_float_bits(rng);
    case FieldKind::Enum: {
      const auto& values = enum_values(f.enum_set);
      return values[uniform(rng, 0, values.size() - 1)].value;
    }
  }
  return 0;
}

TensorDesc random_desc(Rng& rng, const OperandSig& sig) {
  static const std::vector<DType> types = all_dtypes();
  TensorDesc d;
  d.addr = std::uniform_int_distribution<uint64_t>()(rng);
  if (sig.dtype == DTypeReq::Any) {
    d.dtype = types[uniform(rng, 0, types.size() - 1)];
  } else {
    for (DType t : types)
      if (dtype_allowed(sig.dtype, t)) d.dtype = t;
  }
  d.rank = static_cast<uint8_t>(sig.rank != 0 ? sig.rank : uniform(rng, 1, kMaxRank));
  for (unsigned i = 0; i < d.rank; ++i) {
    d.shape[i] = uniform(rng, 0, 3) == 0 ? uniform(rng, 1, 0xffffffffu) : uniform(rng, 1, 512);
    d.strides[i] = uniform(rng, 0, 0xffffffffu);  // any stride is encodable, even 0
  }
  return d;
}

enum class Operands { RequiredOnly, All, RandomSubset };

Instruction random_instruction(Rng& rng, const OpcodeInfo& info, Operands which) {
  Instruction inst(info.id);
  for (Field f : info.fields)
    inst.set_raw(f, random_field_value(rng, field_info(f)));
  for (const OperandSig& sig : info.operands) {
    const bool present = !sig.optional || which == Operands::All ||
                         (which == Operands::RandomSubset && uniform(rng, 0, 1) == 1);
    if (present) inst.set_operand(sig.slot, random_desc(rng, sig));
  }
  const uint32_t ndeps = uniform(rng, 0, 9) == 0 ? uniform(rng, 0, kMaxDeps) : uniform(rng, 0, 4);
  for (uint32_t i = 0; i < ndeps; ++i)
    inst.deps.push_back(uniform(rng, 0, 0xffffffffu));
  return inst;
}

void expect_round_trip(const Instruction& inst) {
  std::vector<uint32_t> words;
  encode(inst, &words);
  ASSERT_EQ(words.size(), encoded_words(inst)) << inst.info().mnemonic;
  EXPECT_EQ(words[0] >> 16, words.size()) << "length field";
  size_t consumed = 0;
  const Instruction back = decode(words.data(), words.size(), &consumed);
  EXPECT_EQ(consumed, words.size()) << inst.info().mnemonic;
  EXPECT_TRUE(back == inst) << inst.info().mnemonic;
  // Words after the instruction belong to the next one and are not read.
  words.push_back(0xdeadbeefu);
  const Instruction again = decode(words.data(), words.size(), &consumed);
  EXPECT_EQ(consumed, words.size() - 1);
  EXPECT_TRUE(again == inst);
}

TEST(Codec, EveryOpcodeRoundTrips) {
  Rng rng(20240601);
  for (const OpcodeInfo& info : opcode_table()) {
    SCOPED_TRACE(std::string(info.mnemonic));
    for (int trial = 0; trial < 40; ++trial) {
      for (Operands which : {Operands::RequiredOnly, Operands::All, Operands::RandomSubset})
        expect_round_trip(random_instruction(rng, info, which));
    }
  }
}

TEST(Codec, DefaultInstructionsRoundTrip) {
  for (const OpcodeInfo& info : opcode_table())
    expect_round_trip(Instruction(info.id));
}

TEST(Codec, StreamOfInstructionsDecodesInOrder) {
  Rng rng(7);
  std::vector<Instruction> program;
  std::vector<uint32_t> words;
  for (const OpcodeInfo& info : opcode_table()) {
    program.push_back(random_instruction(rng, info, Operands::RandomSubset));
    encode(program.back(), &words);
  }
  size_t pos = 0;
  for (const Instruction& expected : program) {
    size_t used = 0;
    EXPECT_TRUE(decode(words.data() + pos, words.size() - pos, &used) == expected);
    pos += used;
  }
  EXPECT_EQ(pos, words.size());
}

// bn_bwd's field (gate_act) arrived with format version 4 (S2_FIELDS_SINCE in isa.def): an
// older layout has no field word and reads gate_act as relu, and each layout's length is
// checked against the version it is read as. The writer needs version 4 only for another gate.
TEST(Codec, FieldsArriveWithTheirFormatVersion) {
  const OpcodeInfo& info = opcode_info(Opcode::BnBwd);
  ASSERT_EQ(info.fields_since, 4u);
  ASSERT_EQ(info.field_words, 1u);
  Instruction relu(Opcode::BnBwd);
  relu.deps = {3};
  EXPECT_EQ(oldest_layout(relu), 0u);
  std::vector<uint32_t> v3, v4;
  encode(relu, &v3, 3);
  encode(relu, &v4, 4);
  EXPECT_EQ(v3.size(), kHeaderWords + 1u);  // the header and the dependency
  EXPECT_EQ(v4.size(), kHeaderWords + 2u);
  EXPECT_EQ(encoded_words(relu, 3), v3.size());
  size_t used = 0;
  EXPECT_TRUE(decode(v3.data(), v3.size(), &used, 3) == relu);
  EXPECT_EQ(used, v3.size());
  EXPECT_TRUE(decode(v4.data(), v4.size(), &used, 4) == relu);
  try {
    decode(v3.data(), v3.size(), &used, 4);
    ADD_FAILURE() << "version 3's bn_bwd read as version 4";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(),
                 "bn_bwd: length field says 3 words, the operands and dependencies "
                 "take 4");
  }

  Instruction silu = relu;
  silu.set_raw(Field::GateAct, static_cast<uint32_t>(GateAct::Silu));
  EXPECT_EQ(oldest_layout(silu), 4u);
  EXPECT_ANY_THROW(encode(silu, &v3, 3));  // the writer never asks for that
  std::vector<uint32_t> words;
  encode(silu, &words);
  EXPECT_TRUE(decode(words.data(), words.size(), &used) == silu);
  // Every other opcode has one layout in every version.
  for (const OpcodeInfo& op : opcode_table()) {
    if (op.id == Opcode::BnBwd) continue;
    EXPECT_EQ(field_words(op, 1), op.field_words) << op.mnemonic;
  }
}

// ---- the table's own invariants ------------------------------------------------------------

TEST(IsaTable, NamesAndCodesAreUnique) {
  std::set<unsigned> codes;
  std::set<std::string_view> mnemonics, fields, slots, dtypes;
  for (const OpcodeInfo& info : opcode_table()) {
    EXPECT_TRUE(codes.insert(info.code).second) << "opcode code " << unsigned{info.code};
    EXPECT_TRUE(mnemonics.insert(info.mnemonic).second) << info.mnemonic;
    EXPECT_EQ(find_opcode(info.code), &info);
    EXPECT_EQ(find_opcode(info.mnemonic), &info);
  }
  for (const FieldInfo& f : field_table())
    EXPECT_TRUE(fields.insert(f.name).second) << f.name;
  for (const SlotInfo& s : slot_table())
    EXPECT_TRUE(slots.insert(s.name).second) << s.name;
  for (DType t : all_dtypes())
    EXPECT_TRUE(dtypes.insert(dtype_name(t)).second);
  EXPECT_EQ(field_table().size(), kNumFields);
  EXPECT_EQ(slot_table().size(), kNumSlots);
}

TEST(IsaTable, FieldsFitTheirWidthAndDefaults) {
  for (const FieldInfo& f : field_table()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_GE(f.bits, 1u);
    EXPECT_LE(f.bits, 32u);
    const uint64_t max = (uint64_t{1} << f.bits) - 1;
    if (f.kind == FieldKind::Flag) {
      EXPECT_EQ(f.bits, 1u);
    }
    if (f.kind == FieldKind::Float || f.kind == FieldKind::Int) {
      EXPECT_EQ(f.bits, 32u);
    }
    if (f.kind == FieldKind::UInt) {
      EXPECT_LE(f.min_value, max);
    }
    if (f.kind == FieldKind::Enum) {
      EXPECT_NE(f.enum_set, EnumSet::None);
      const auto& values = enum_values(f.enum_set);
      EXPECT_FALSE(values.empty());
      std::set<uint32_t> seen_values;
      std::set<std::string_view> seen_names;
      for (const EnumValue& e : values) {
        EXPECT_LE(e.value, max) << e.name;
        EXPECT_TRUE(seen_values.insert(e.value).second) << e.name;
        EXPECT_TRUE(seen_names.insert(e.name).second) << e.name;
      }
    } else {
      EXPECT_EQ(f.enum_set, EnumSet::None);
    }
    if (!f.default_value) continue;
    const uint32_t d = *f.default_value;
    EXPECT_LE(d, max);
    if (f.kind == FieldKind::UInt) {
      EXPECT_GE(d, f.min_value);
    }
    if (f.kind == FieldKind::Enum) {
      bool known = false;
      for (const EnumValue& e : enum_values(f.enum_set))
        known = known || e.value == d;
      EXPECT_TRUE(known) << "default " << d << " is not a value of its set";
    }
  }
}

TEST(IsaTable, OpcodeSignaturesAreConsistent) {
  for (const OpcodeInfo& info : opcode_table()) {
    SCOPED_TRACE(std::string(info.mnemonic));
    EXPECT_LE(info.operands.size(), 16u) << "the presence mask has 16 bits";
    std::set<Slot> slots;
    for (const OperandSig& s : info.operands) {
      EXPECT_TRUE(slots.insert(s.slot).second) << "operand " << slot_info(s.slot).name;
      EXPECT_LE(s.rank, kMaxRank);
    }
    std::set<Field> fields;
    for (Field f : info.fields)
      EXPECT_TRUE(fields.insert(f).second) << field_info(f).name;

    // Placements: one per field in order, inside the field words, never overlapping.
    ASSERT_EQ(info.placement.size(), info.fields.size());
    std::vector<uint32_t> used(info.field_words, 0);
    for (size_t i = 0; i < info.placement.size(); ++i) {
      const FieldPlacement& p = info.placement[i];
      const unsigned bits = field_info(p.field).bits;
      EXPECT_EQ(p.field, info.fields[i]);
      ASSERT_GE(p.word, kHeaderWords);
      ASSERT_LT(p.word, kHeaderWords + info.field_words) << field_info(p.field).name;
      EXPECT_LE(p.bit + bits, 32u) << field_info(p.field).name << " straddles a word";
      const uint32_t mask = (bits == 32 ? 0xffffffffu : (1u << bits) - 1u) << p.bit;
      EXPECT_EQ(used[p.word - kHeaderWords] & mask, 0u) << field_info(p.field).name;
      used[p.word - kHeaderWords] |= mask;
    }
    for (size_t w = 0; w < used.size(); ++w)
      EXPECT_NE(used[w], 0u) << "empty field word " << w;
  }
}

TEST(IsaTable, EveryDTypeRequirementIsSatisfiable) {
  for (const OpcodeInfo& info : opcode_table())
    for (const OperandSig& s : info.operands) {
      bool satisfiable = false;
      for (DType t : all_dtypes())
        satisfiable = satisfiable || dtype_allowed(s.dtype, t);
      EXPECT_TRUE(satisfiable) << info.mnemonic << "." << slot_info(s.slot).name;
    }
}

// ---- structural errors ---------------------------------------------------------------------

// A conv2d with every operand: it has optional operands, several field words with spare bits,
// and descriptors of rank 1, 2 and 4.
std::vector<uint32_t> conv2d_words() {
  Instruction inst(Opcode::Conv2d);
  inst.set_operand(Slot::X, TensorDesc::contiguous(0x1000, DType::F32, {1, 3, 8, 8}));
  inst.set_operand(Slot::W, TensorDesc::contiguous(0x2000, DType::F32, {4, 3, 3, 3}));
  inst.set_operand(Slot::Bias, TensorDesc::contiguous(0x3000, DType::F32, {4}));
  inst.set_operand(Slot::Y, TensorDesc::contiguous(0x4000, DType::F32, {1, 4, 6, 6}));
  inst.deps = {0, 1};
  std::vector<uint32_t> words;
  encode(inst, &words);
  return words;
}

// Word index of the first descriptor (x) and the third one (bias, rank 1).
size_t descriptor_word(size_t n) {
  return kHeaderWords + opcode_info(Opcode::Conv2d).field_words + n * kDescriptorWords;
}

struct Failure {
  size_t word;
  std::string message;
};

Failure decode_failure(const std::vector<uint32_t>& words, size_t available) {
  size_t consumed = 0;
  try {
    decode(words.data(), available, &consumed);
  } catch (const DecodeError& e) {
    return {e.word(), e.what()};
  }
  ADD_FAILURE() << "decode accepted the words";
  return {0, ""};
}

Failure decode_failure(const std::vector<uint32_t>& words) {
  return decode_failure(words, words.size());
}

void expect_failure(const Failure& f, size_t word, const std::string& text,
                    std::set<std::string>* seen) {
  EXPECT_EQ(f.word, word) << f.message;
  EXPECT_NE(f.message.find(text), std::string::npos) << "message: " << f.message;
  EXPECT_TRUE(seen->insert(f.message).second) << "message not distinct: " << f.message;
}

TEST(DecodeErrors, EachDefectHasItsOwnMessage) {
  const std::vector<uint32_t> good = conv2d_words();
  std::set<std::string> seen;
  auto patched = [&](size_t word, uint32_t value) {
    std::vector<uint32_t> w = good;
    w[word] = value;
    return w;
  };

  unsigned unused_code = 0;
  while (find_opcode(static_cast<uint8_t>(unused_code)) != nullptr)
    ++unused_code;
  ASSERT_LT(unused_code, 256u);
  expect_failure(decode_failure(patched(0, (good[0] & ~0xffu) | unused_code)), 0, "unknown opcode",
                 &seen);
  expect_failure(decode_failure(patched(0, good[0] + (1u << 16))), 0,
                 "conv2d: length field says " + std::to_string(good.size() + 1), &seen);
  expect_failure(decode_failure(good, good.size() - 1), 0,
                 "runs past the end (" + std::to_string(good.size() - 1) + " words left)", &seen);
  expect_failure(decode_failure(good, 1), 0, "truncated instruction header", &seen);
  expect_failure(decode_failure(patched(1, good[1] | (1u << 7))), 1, "conv2d: operand mask 0x",
                 &seen);

  const size_t x = descriptor_word(0);
  const size_t bias = descriptor_word(2);
  expect_failure(decode_failure(patched(x + 2, 0xfu | (4u << 4))), x + 2,
                 "operand 'x': unknown dtype code 15", &seen);
  expect_failure(decode_failure(patched(x + 2, 0u)), x + 2, "operand 'x': rank 0 outside 1..4",
                 &seen);
  expect_failure(decode_failure(patched(x + 2, 5u << 4)), x + 2, "operand 'x': rank 5 outside 1..4",
                 &seen);
  expect_failure(decode_failure(patched(x + 2, (4u << 4) | (1u << 8))), x + 2,
                 "reserved bits set in the type word", &seen);
  expect_failure(decode_failure(patched(x + 4, 0)), x + 4, "operand 'x': dimension 1 is zero",
                 &seen);
  expect_failure(decode_failure(patched(bias + 3 + 2, 7)), bias + 5,
                 "operand 'bias': shape entry 2 past rank 1 is not zero", &seen);
  expect_failure(decode_failure(patched(bias + 3 + kMaxRank + 1, 7)), bias + 3 + kMaxRank + 1,
                 "operand 'bias': stride entry 1 past rank 1 is not zero", &seen);
}

TEST(DecodeErrors, MaskBitsPastSixteenAreRejected) {
  std::vector<uint32_t> words = conv2d_words();
  words[1] |= 1u << 20;
  EXPECT_NE(decode_failure(words).message.find("names operands the opcode does not have"),
            std::string::npos);
}

TEST(DecodeErrors, EmptyInputIsTruncated) {
  size_t consumed = 0;
  EXPECT_THROW(decode(nullptr, 0, &consumed), DecodeError);
}

// Table-driven: every bit that no field of an opcode owns is reserved and must be zero.
TEST(DecodeErrors, ReservedFieldBitsOfEveryOpcode) {
  for (const OpcodeInfo& info : opcode_table()) {
    std::vector<uint32_t> used(info.field_words, 0);
    for (const FieldPlacement& p : info.placement) {
      const unsigned bits = field_info(p.field).bits;
      used[p.word - kHeaderWords] |= (bits == 32 ? 0xffffffffu : (1u << bits) - 1u) << p.bit;
    }
    for (size_t w = 0; w < used.size(); ++w) {
      if (used[w] == 0xffffffffu) continue;
      const uint32_t spare = ~used[w] & (0u - ~used[w]);  // lowest reserved bit
      std::vector<uint32_t> words;
      encode(Instruction(info.id), &words);
      words[kHeaderWords + w] |= spare;
      const Failure f = decode_failure(words);
      EXPECT_EQ(f.word, kHeaderWords + w) << info.mnemonic;
      EXPECT_NE(f.message.find(std::string(info.mnemonic) + ": reserved field bits set"),
                std::string::npos)
          << f.message;
    }
  }
}

// Table-driven: a mask bit just past the opcode's operands is rejected for every opcode.
TEST(DecodeErrors, MaskNamingAbsentOperandOfEveryOpcode) {
  for (const OpcodeInfo& info : opcode_table()) {
    std::vector<uint32_t> words;
    encode(Instruction(info.id), &words);
    words[1] |= 1u << info.operands.size();
    const Failure f = decode_failure(words);
    EXPECT_EQ(f.word, 1u);
    EXPECT_NE(f.message.find("names operands the opcode does not have (it has " +
                             std::to_string(info.operands.size()) + ")"),
              std::string::npos)
        << f.message;
  }
}

// Operands are kept by their position in the opcode's operand list, not in an array over every
// slot of the ISA (which made an instruction 3.3 KB): each slot reads back what was set in it
// and nothing else, clearing one leaves the others, and a slot the opcode lacks is refused.
TEST(Instruction, OperandsLiveInTheirOwnSlots) {
  EXPECT_LE(sizeof(Instruction), 1280u);
  Rng rng(7);
  for (const OpcodeInfo& info : opcode_table()) {
    SCOPED_TRACE(std::string(info.mnemonic));
    Instruction inst(info.id);
    std::vector<TensorDesc> set;
    for (const OperandSig& sig : info.operands) {
      TensorDesc d = random_desc(rng, sig);
      d.addr = 0x1000u * (set.size() + 1);  // distinct per slot
      inst.set_operand(sig.slot, d);
      set.push_back(d);
    }
    for (size_t i = 0; i < info.operands.size(); ++i)
      EXPECT_EQ(inst.get(info.operands[i].slot), set[i]) << i;
    if (!info.operands.empty()) {
      inst.clear_operand(info.operands.front().slot);
      EXPECT_FALSE(inst.operand(info.operands.front().slot).has_value());
      for (size_t i = 1; i < info.operands.size(); ++i)
        EXPECT_EQ(inst.get(info.operands[i].slot), set[i]) << i;
    }
    for (const SlotInfo& slot : slot_table()) {
      if (inst.has_slot(slot.id)) continue;
      EXPECT_THROW(inst.operand(slot.id), InternalError) << slot.name;
      EXPECT_THROW(inst.set_operand(slot.id, TensorDesc{}), InternalError) << slot.name;
    }
  }
}

}  // namespace
}  // namespace s2::isa
