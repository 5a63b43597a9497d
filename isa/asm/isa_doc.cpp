#include "isa/asm/isa_doc.h"

#include <fmt/format.h>

#include <cstdio>
#include <sstream>
#include <string_view>
#include <vector>

#include "isa/common/float_text.h"
#include "isa/common/hex.h"
#include "isa/encoding/codec.h"
#include "isa/encoding/instruction.h"
#include "isa/encoding/isa_table.h"

namespace s2::isa {
namespace {

// Meanings are free text from isa.def; a '|' would end the table cell early.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string code(std::string_view text) {
  return "`" + std::string(text) + "`";
}

std::string opcode_hex(unsigned value) {
  return fmt::format("0x{:02x}", value);
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? std::string(separator) : "") + parts[i];
  return out;
}

std::string bit_range(unsigned low, unsigned width) {
  if (width == 1) return std::to_string(low);
  return std::to_string(low) + "-" + std::to_string(low + width - 1);
}

std::string rank_text(unsigned rank) {
  return rank == 0 ? "1-" + std::to_string(kMaxRank) : std::to_string(rank);
}

// Enumerated sets in the order the field table first uses them. A set no field uses cannot
// appear in an instruction, so it has nothing to document.
std::vector<EnumSet> used_enum_sets() {
  std::vector<EnumSet> sets;
  for (const FieldInfo& f : field_table()) {
    if (f.kind != FieldKind::Enum) continue;
    bool seen = false;
    for (EnumSet s : sets)
      seen = seen || s == f.enum_set;
    if (!seen) sets.push_back(f.enum_set);
  }
  return sets;
}

std::string value_text(const FieldInfo& f, uint32_t v) {
  switch (f.kind) {
    case FieldKind::UInt:
    case FieldKind::Flag:
      return std::to_string(v);
    case FieldKind::Int:
      return std::to_string(static_cast<int32_t>(v));
    case FieldKind::Float:
      return format_f32(f32_from_bits(v)) + " (" + code(hex(v)) + ")";
    case FieldKind::Enum:
      for (const EnumValue& e : enum_values(f.enum_set))
        if (e.value == v) return code(e.name) + " (" + std::to_string(v) + ")";
      return std::to_string(v);
  }
  return std::to_string(v);
}

std::string default_text(const FieldInfo& f) {
  return f.default_value ? value_text(f, *f.default_value) : "required";
}

std::string min_text(const FieldInfo& f) {
  return f.kind == FieldKind::UInt ? std::to_string(f.min_value) : "-";
}

std::string values_text(const FieldInfo& f) {
  switch (f.kind) {
    case FieldKind::UInt: {
      const uint64_t max = (uint64_t{1} << f.bits) - 1;
      return std::to_string(f.min_value) + ".." + std::to_string(max);
    }
    case FieldKind::Int:
      return "-2147483648..2147483647";
    case FieldKind::Flag:
      return "0, 1";
    case FieldKind::Float:
      return "any f32 bit pattern";
    case FieldKind::Enum: {
      std::vector<std::string> names;
      for (const EnumValue& e : enum_values(f.enum_set))
        names.push_back(code(e.name));
      return join(names, ", ");
    }
  }
  return "-";
}

std::vector<std::string> users_of_field(Field field) {
  std::vector<std::string> users;
  for (const OpcodeInfo& op : opcode_table())
    if (field_index(op, field) >= 0) users.push_back(code(op.mnemonic));
  return users;
}

std::vector<std::string> users_of_slot(Slot slot) {
  std::vector<std::string> users;
  for (const OpcodeInfo& op : opcode_table())
    if (operand_index(op, slot) >= 0) users.push_back(code(op.mnemonic));
  return users;
}

void write_intro(std::ostream& os) {
  os << "# S2Train ISA reference\n\n"
     << "<!-- Generated from isa/encoding/isa.def by `s2c isa-doc -o docs/isa.md`. Do not edit by "
        "hand: a test fails when this file differs from the generator's output. -->\n\n"
     << "S2Train is a neural-network training accelerator: a PE array (a systolic array of "
        "multiply-accumulate cells) computes convolutions and matrix products and streams its "
        "results through the PPU (a vector unit) that applies the epilogue; the PPU also runs "
        "batch norm, pooling, element-wise operations, the loss and the weight update, and DMA "
        "engines copy and fill DRAM. The instruction set is coarse-grained: one instruction is "
        "one fused operation, and the hardware tiles it onto the array and the on-chip buffers, "
        "so one executable runs on every configuration with enough DRAM. Every operand is a "
        "tensor descriptor in DRAM (address, element type, shape, strides) whose address comes "
        "from the compiler's static memory plan, and every instruction names the earlier "
        "instructions it waits for, so the units can overlap.\n\n"
     << "This page is generated from the instruction-set table `isa/encoding/isa.def`, the "
        "same table the encoder, decoder, assembler and disassembler are built from.\n\n";
}

void write_encoding(std::ostream& os) {
  os << "## Encoding\n\n"
     << "An instruction is a sequence of little-endian 32-bit words. Its length in words is\n"
     << kHeaderWords << " (header) + the field words of its opcode + " << kDescriptorWords
     << " per present operand + 1 per dependency, at most " << kMaxInstructionWords << ".\n\n"
     << "| words | bits | content |\n|---|---|---|\n"
     << "| 0 | 0-7 | opcode |\n"
     << "| 0 | 8-15 | dependency count (at most " << kMaxDeps << ") |\n"
     << "| 0 | 16-31 | length of the instruction in words |\n"
     << "| 1 | 0-15 | operand presence mask: bit i set when the i-th operand of the opcode's "
        "operand table is present |\n"
     << "| 1 | 16-31 | zero |\n"
     << "| " << kHeaderWords << " ... | | fields, packed (see below) |\n"
     << "| then | | one " << kDescriptorWords
     << "-word tensor descriptor per present operand, in operand-table order |\n"
     << "| then | | one word per dependency |\n\n";

  os << "**Fields** are packed in the order of the opcode's field table, starting at bit 0 of "
        "word "
     << kHeaderWords
     << ". A field never straddles two words: when it does not fit in the rest of the current "
        "word it starts the next one. Bits that no field owns are zero. Each instruction's field "
        "table below gives the resulting word and bit position of every field; an opcode without "
        "fields has no field words. Float fields hold IEEE-754 binary32 bit patterns; enumerated "
        "fields hold the value of one of their names.\n\n";

  os << "**Tensor descriptor** (" << kDescriptorWords
     << " words). Shape and strides count elements, outermost dimension first; entries past "
        "the rank are zero, and every dimension within the rank is at least 1.\n\n"
     << "| word | content |\n|---|---|\n"
     << "| 0 | address, bits 0-31 (byte address in DRAM, or in host memory) |\n"
     << "| 1 | address, bits 32-63 |\n"
     << "| 2 | bits 0-3 element type code, bits 4-6 rank (1-" << kMaxRank
     << "), bit 7 host memory (the address is in host memory, not DRAM: the swap space behind "
        "the target's host link, container format version 3; only `copy` takes such operands, "
        "never on both sides), bits 8-31 zero |\n"
     << "| 3-" << 2 + kMaxRank << " | shape[0] ... shape[" << kMaxRank - 1 << "] |\n"
     << "| " << 3 + kMaxRank << "-" << 2 + 2 * kMaxRank << " | strides[0] ... strides["
     << kMaxRank - 1 << "] |\n\n";

  os << "Strides may repeat elements: a zero stride broadcasts an input along a dimension (a "
        "bias over the batch, an attention mask over the heads). Two rules bound what a "
        "descriptor may promise. An output (`out` or `inout`) writes each element once: with "
        "its dimensions of extent above 1 in stride order, each stride lies beyond the farthest "
        "element the finer dimensions reach, which every stored layout (dense, permuted, "
        "sliced) meets. And an operand describes at most one element per byte of its memory "
        "(the executable's DRAM size, or host memory size), so a few bytes of descriptor can "
        "never ask for unbounded work.\n\n";

  os << "**Dependencies**: each dependency word is the index (counted from 0 in program "
        "order) of an earlier instruction that must complete before this one starts. An "
        "instruction may not depend on itself or on a later instruction, nor list one "
        "dependency twice. The simulator checks that the dependencies cover every "
        "read-after-write, write-after-read and write-after-write overlap of DRAM ranges.\n\n";

  os << "A decoder rejects, each with its own message: an unknown opcode; a length that "
        "disagrees with the operands and dependencies; an instruction that runs past the end "
        "of the words; nonzero reserved field bits; a presence mask naming operands the opcode "
        "does not have; an unknown element type code; a rank outside 1-"
     << kMaxRank
     << "; a zero dimension; nonzero shape or stride entries past the rank; nonzero reserved "
        "bits of the type word.\n\n";

  // A worked example, produced by the encoder itself so it cannot drift from the rules above.
  Instruction fill(Opcode::Fill);
  fill.set_f32(Field::Value, 1.0f);
  fill.set_operand(Slot::Dst, TensorDesc::contiguous(0x1000, DType::F32, {2, 3}));
  fill.deps = {0};
  std::vector<uint32_t> words;
  encode(fill, &words);
  os << "Example: `fill` with `value` = 1, `dst` an f32 [2, 3] tensor at 0x1000, depending on "
        "instruction 0, encodes to "
     << words.size() << " words:\n\n```\n";
  for (size_t i = 0; i < words.size(); ++i) {
    os << fmt::format("{:08x}", words[i]) << (i + 1 == words.size() || i % 8 == 7 ? "\n" : " ");
  }
  os << "```\n\n";
}

void write_dtypes(std::ostream& os) {
  os << "## Element types\n\n| code | name | bytes |\n|---|---|---|\n";
  for (uint32_t c = 0; c < 16; ++c)  // the descriptor's 4-bit type code
    if (const std::optional<DType> t = dtype_from_code(c))
      os << "| " << c << " | " << code(dtype_name(*t)) << " | " << dtype_bytes(*t) << " |\n";
  os << "\nThe datapath computes in f32 (IEEE binary32, subnormals flushed). An operand slot of "
        "type "
        "`f32, bf16 or f16` takes any of the three: a `bf16` or `f16` element is widened to f32 "
        "where it enters the PE array or the PPU (exactly; `f16` subnormals are kept, `bf16` "
        "subnormals read as zero like f32 ones), and a result is rounded to its operand's type "
        "where it is written (round to nearest even; overflow to infinity; `f16` underflows "
        "gradually through its subnormals; a NaN becomes the type's canonical quiet NaN). "
        "`isa/numerics/low_precision.h` defines both directions. A PE instruction's "
        "multiplicands share one type, its multiply mode: products of two `bf16` or two `f16` "
        "values are exact in f32, so only the f32 additions round. Master weights, optimizer "
        "state and normalisation statistics are `f32` only.\n\n";
}

void write_enums(std::ostream& os) {
  os << "## Enumerations\n\n";
  for (EnumSet set : used_enum_sets()) {
    std::vector<std::string> fields;
    for (const FieldInfo& f : field_table())
      if (f.kind == FieldKind::Enum && f.enum_set == set) fields.push_back(code(f.name));
    os << "### " << enum_set_name(set) << "\n\nValues of the field"
       << (fields.size() > 1 ? "s " : " ") << join(fields, ", ")
       << ".\n\n| value | name | meaning |\n|---|---|---|\n";
    for (const EnumValue& e : enum_values(set))
      os << "| " << e.value << " | " << code(e.name) << " | " << cell(e.meaning) << " |\n";
    os << "\n";
  }
}

void write_fields(std::ostream& os) {
  os << "## Fields\n\nEvery scalar field an instruction can carry. The default is the value "
        "assumed when assembly text omits the field; a required field must be given. Where a "
        "field sits in the words depends on the instruction (see its field table).\n\n"
     << "| field | width | kind | default | min | values | meaning | used by |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  for (const FieldInfo& f : field_table())
    os << "| " << code(f.name) << " | " << f.bits << " | " << field_kind_name(f.kind) << " | "
       << default_text(f) << " | " << min_text(f) << " | " << values_text(f) << " | "
       << cell(f.meaning) << " | " << join(users_of_field(f.id), ", ") << " |\n";
  os << "\n";
}

void write_slots(std::ostream& os) {
  os << "## Operand names\n\n| operand | meaning | used by |\n|---|---|---|\n";
  for (const SlotInfo& s : slot_table())
    os << "| " << code(s.name) << " | " << cell(s.meaning) << " | "
       << join(users_of_slot(s.id), ", ") << " |\n";
  os << "\n";
}

void write_summary(std::ostream& os) {
  os << "## Instructions\n\n| opcode | mnemonic | unit | summary |\n|---|---|---|---|\n";
  for (const OpcodeInfo& op : opcode_table())
    os << "| " << code(opcode_hex(op.code)) << " | [" << op.mnemonic << "](#" << op.mnemonic
       << ") | " << unit_name(op.unit) << " | " << cell(op.summary) << " |\n";
  os << "\n";
}

void write_instruction(std::ostream& os, const OpcodeInfo& op) {
  os << "### " << op.mnemonic << "\n\n"
     << cell(op.summary) << "\n\n"
     << "- opcode: " << code(opcode_hex(op.code)) << "\n"
     << "- unit: " << unit_name(op.unit) << "\n"
     << "- length: " << kHeaderWords << " + " << op.field_words << " field word"
     << (op.field_words == 1 ? "" : "s");
  if (op.fields_since != 0) os << " (none in format versions before " << op.fields_since << ")";
  os << " + " << kDescriptorWords << " per present operand + 1 per dependency\n\n";

  if (op.operands.empty()) {
    os << "No operands.\n\n";
  } else {
    os << "| mask bit | operand | access | presence | rank | dtype | meaning |\n"
       << "|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const OperandSig& s = op.operands[i];
      os << "| " << i << " | " << code(slot_info(s.slot).name) << " | " << access_name(s.access)
         << " | " << (s.optional ? "optional" : "required") << " | " << rank_text(s.rank) << " | "
         << dtype_req_name(s.dtype) << " | " << cell(slot_info(s.slot).meaning) << " |\n";
    }
    os << "\n";
  }

  if (op.fields.empty()) {
    os << "No fields.\n\n";
    return;
  }
  os << "| field | word | bits | width | kind | default | min | values | meaning |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  for (const FieldPlacement& p : op.placement) {
    const FieldInfo& f = field_info(p.field);
    os << "| " << code(f.name) << " | " << p.word << " | " << bit_range(p.bit, f.bits) << " | "
       << f.bits << " | " << field_kind_name(f.kind) << " | " << default_text(f) << " | "
       << min_text(f) << " | " << values_text(f) << " | " << cell(f.meaning) << " |\n";
  }
  os << "\n";
}

}  // namespace

std::string isa_reference_markdown() {
  std::ostringstream os;
  write_intro(os);
  write_encoding(os);
  write_dtypes(os);
  write_enums(os);
  write_fields(os);
  write_slots(os);
  write_summary(os);
  for (const OpcodeInfo& op : opcode_table())
    write_instruction(os, op);
  std::string text = os.str();
  text.pop_back();  // one newline at the end of the file, not a blank line
  return text;
}

}  // namespace s2::isa
