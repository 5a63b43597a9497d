#include "isa/encoding/codec.h"

#include "isa/common/errors.h"
#include "isa/common/hex.h"

namespace s2::isa {
namespace {

uint32_t field_mask(unsigned bits) {
  return bits == 32 ? 0xffffffffu : (1u << bits) - 1u;
}

uint32_t presence_mask(const Instruction& inst) {
  uint32_t mask = 0;
  const auto& operands = inst.info().operands;
  for (size_t i = 0; i < operands.size(); ++i)
    if (inst.operand(operands[i].slot)) mask |= 1u << i;
  return mask;
}

unsigned popcount(uint32_t v) {
  unsigned n = 0;
  for (; v != 0; v &= v - 1)
    ++n;
  return n;
}

// Bit 7 of a descriptor's type word: the descriptor names host memory (format version 3).
constexpr uint32_t kHostSpaceBit = 1u << 7;

void encode_descriptor(const TensorDesc& d, std::vector<uint32_t>* out) {
  out->push_back(static_cast<uint32_t>(d.addr));
  out->push_back(static_cast<uint32_t>(d.addr >> 32));
  out->push_back(static_cast<uint32_t>(d.dtype) | (uint32_t{d.rank} << 4) |
                 (d.space == MemSpace::Host ? kHostSpaceBit : 0));
  for (uint32_t s : d.shape)
    out->push_back(s);
  for (uint32_t s : d.strides)
    out->push_back(s);
}

// `base` is the descriptor's word offset inside the instruction, for error positions.
TensorDesc decode_descriptor(const uint32_t* w, size_t base, std::string_view slot) {
  const std::string where = "operand '" + std::string(slot) + "': ";
  TensorDesc d;
  d.addr = uint64_t{w[0]} | (uint64_t{w[1]} << 32);
  const uint32_t type_word = w[2];
  const std::optional<DType> dtype = dtype_from_code(type_word & 0xf);
  if (!dtype)
    throw DecodeError(base + 2, where + "unknown dtype code " + std::to_string(type_word & 0xf));
  d.dtype = *dtype;
  const uint32_t rank = (type_word >> 4) & 0x7;
  if (rank < 1 || rank > kMaxRank)
    throw DecodeError(base + 2, where + "rank " + std::to_string(rank) + " outside 1.." +
                                    std::to_string(kMaxRank));
  if (type_word & kHostSpaceBit) d.space = MemSpace::Host;
  if ((type_word >> 8) != 0)
    throw DecodeError(base + 2, where + "reserved bits set in the type word " + hex(type_word));
  d.rank = static_cast<uint8_t>(rank);
  for (unsigned i = 0; i < kMaxRank; ++i) {
    d.shape[i] = w[3 + i];
    d.strides[i] = w[3 + kMaxRank + i];
    if (i < rank && d.shape[i] == 0)
      throw DecodeError(base + 3 + i, where + "dimension " + std::to_string(i) + " is zero");
    if (i >= rank && d.shape[i] != 0)
      throw DecodeError(base + 3 + i, where + "shape entry " + std::to_string(i) + " past rank " +
                                          std::to_string(rank) + " is not zero");
    if (i >= rank && d.strides[i] != 0)
      throw DecodeError(base + 3 + kMaxRank + i, where + "stride entry " + std::to_string(i) +
                                                     " past rank " + std::to_string(rank) +
                                                     " is not zero");
  }
  return d;
}

}  // namespace

unsigned field_words(const OpcodeInfo& op, uint32_t version) {
  return version < op.fields_since ? 0 : op.field_words;
}

uint32_t oldest_layout(const Instruction& inst) {
  const OpcodeInfo& info = inst.info();
  if (info.fields_since == 0) return 0;
  for (Field f : info.fields)
    if (inst.raw(f) != field_info(f).default_value.value_or(0)) return info.fields_since;
  return 0;
}

size_t encoded_words(const Instruction& inst, uint32_t version) {
  return kHeaderWords + field_words(inst.info(), version) +
         popcount(presence_mask(inst)) * size_t{kDescriptorWords} + inst.deps.size();
}

void encode(const Instruction& inst, std::vector<uint32_t>* out, uint32_t version) {
  const OpcodeInfo& info = inst.info();
  const size_t length = encoded_words(inst, version);
  S2_CHECK(inst.deps.size() <= kMaxDeps,
           std::string(info.mnemonic) + ": " + std::to_string(inst.deps.size()) +
               " dependencies exceed the encodable " + std::to_string(kMaxDeps));
  S2_CHECK(length <= kMaxInstructionWords,
           std::string(info.mnemonic) + ": encoding exceeds the maximum length");
  S2_CHECK(version >= oldest_layout(inst),
           std::string(info.mnemonic) + ": its fields need format version " +
               std::to_string(oldest_layout(inst)) + ", not " + std::to_string(version));
  const size_t start = out->size();
  out->push_back(uint32_t{info.code} | (static_cast<uint32_t>(inst.deps.size()) << 8) |
                 (static_cast<uint32_t>(length) << 16));
  out->push_back(presence_mask(inst));
  const unsigned nfield = field_words(info, version);
  out->resize(out->size() + nfield, 0);
  if (nfield != 0)
    for (const FieldPlacement& p : info.placement)
      (*out)[start + p.word] |= (inst.raw(p.field) & field_mask(field_info(p.field).bits)) << p.bit;
  for (const OperandSig& op : info.operands)
    if (const auto& d = inst.operand(op.slot)) encode_descriptor(*d, out);
  for (uint32_t dep : inst.deps)
    out->push_back(dep);
}

Instruction decode(const uint32_t* words, size_t available, size_t* consumed, uint32_t version) {
  if (available < kHeaderWords)
    throw DecodeError(0, "truncated instruction header (" + std::to_string(available) + " of " +
                             std::to_string(kHeaderWords) + " words left)");
  const uint32_t head = words[0];
  const auto code = static_cast<uint8_t>(head & 0xff);
  const OpcodeInfo* info = find_opcode(code);
  if (info == nullptr) throw DecodeError(0, "unknown opcode " + hex(code));
  const size_t ndeps = (head >> 8) & 0xff;
  const size_t length = head >> 16;
  const uint32_t mask = words[1];
  const size_t nops = info->operands.size();
  if ((mask >> nops) != 0 || (mask >> 16) != 0)
    throw DecodeError(1, std::string(info->mnemonic) + ": operand mask " + hex(mask) +
                             " names operands the opcode does not have (it has " +
                             std::to_string(nops) + ")");
  const size_t nfield = field_words(*info, version);
  const size_t expected = kHeaderWords + nfield + popcount(mask) * size_t{kDescriptorWords} + ndeps;
  if (length != expected)
    throw DecodeError(
        0, std::string(info->mnemonic) + ": length field says " + std::to_string(length) +
               " words, the operands and dependencies take " + std::to_string(expected));
  if (length > available)
    throw DecodeError(0, std::string(info->mnemonic) + ": instruction of " +
                             std::to_string(length) + " words runs past the end (" +
                             std::to_string(available) + " words left)");

  Instruction inst(info->id);
  // Fields (a layout without field words leaves the constructor's defaults), then any bit no
  // field owns must be zero.
  std::vector<uint32_t> used(nfield, 0);
  for (const FieldPlacement& p : info->placement) {
    if (nfield == 0) break;
    const uint32_t m = field_mask(field_info(p.field).bits);
    inst.set_raw(p.field, (words[p.word] >> p.bit) & m);
    used[p.word - kHeaderWords] |= m << p.bit;
  }
  for (size_t i = 0; i < nfield; ++i) {
    const uint32_t stray = words[kHeaderWords + i] & ~used[i];
    if (stray != 0)
      throw DecodeError(kHeaderWords + i, std::string(info->mnemonic) +
                                              ": reserved field bits set (" + hex(stray) + ")");
  }
  size_t pos = kHeaderWords + nfield;
  for (size_t i = 0; i < nops; ++i) {
    if ((mask & (1u << i)) == 0) continue;
    const Slot slot = info->operands[i].slot;
    inst.set_operand(slot, decode_descriptor(words + pos, pos, slot_info(slot).name));
    pos += kDescriptorWords;
  }
  inst.deps.assign(words + pos, words + pos + ndeps);
  *consumed = length;
  return inst;
}

}  // namespace s2::isa
