// docs/isa.md is generated from the table; these tests keep the checked-in copy current and
// make sure the generator leaves nothing of the table out.

#include "isa/asm/isa_doc.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "isa/encoding/isa_table.h"

namespace s2::isa {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Index of the first line where the two texts differ, to point at the stale part.
size_t first_differing_line(const std::string& a, const std::string& b) {
  size_t line = 1;
  for (size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
    if (a[i] == '\n') ++line;
  return line;
}

TEST(IsaDoc, CheckedInCopyIsCurrent) {
  const std::string path = std::string(S2_SOURCE_DIR) + "/docs/isa.md";
  const std::string on_disk = read_text(path);
  const std::string generated = isa_reference_markdown();
  EXPECT_TRUE(on_disk == generated)
      << "docs/isa.md is stale; regenerate with: build/compiler/s2c isa-doc -o docs/isa.md\n"
      << "(first difference at line " << first_differing_line(on_disk, generated) << ")";
}

TEST(IsaDoc, IsDeterministic) {
  EXPECT_EQ(isa_reference_markdown(), isa_reference_markdown());
}

// Names are written in backticks; checking the quoted form avoids matching a short name
// ("a", "x") inside some other word.
bool mentions(const std::string& doc, std::string_view name) {
  return doc.find("`" + std::string(name) + "`") != std::string::npos;
}

TEST(IsaDoc, MentionsEverythingInTheTable) {
  const std::string doc = isa_reference_markdown();
  for (const OpcodeInfo& op : opcode_table()) {
    EXPECT_NE(doc.find("### " + std::string(op.mnemonic) + "\n"), std::string::npos)
        << "no section for " << op.mnemonic;
    char code[8];
    std::snprintf(code, sizeof code, "`0x%02x`", unsigned{op.code});
    EXPECT_NE(doc.find(code), std::string::npos) << op.mnemonic << " opcode " << code;
    for (const OperandSig& s : op.operands)
      EXPECT_TRUE(mentions(doc, slot_info(s.slot).name)) << op.mnemonic;
    for (Field f : op.fields)
      EXPECT_TRUE(mentions(doc, field_info(f).name)) << op.mnemonic;
  }
  for (const FieldInfo& f : field_table()) {
    EXPECT_TRUE(mentions(doc, f.name)) << "field " << f.name;
    for (const EnumValue& e : enum_values(f.enum_set))
      EXPECT_TRUE(mentions(doc, e.name)) << "enum value " << e.name << " of " << f.name;
    if (f.kind == FieldKind::Enum) {
      EXPECT_NE(doc.find("### " + std::string(enum_set_name(f.enum_set)) + "\n"), std::string::npos)
          << "no section for the enumeration of " << f.name;
    }
  }
  for (const SlotInfo& s : slot_table())
    EXPECT_TRUE(mentions(doc, s.name)) << "operand " << s.name;
  for (uint32_t c = 0; c < 16; ++c)
    if (const auto t = dtype_from_code(c)) {
      EXPECT_TRUE(mentions(doc, dtype_name(*t))) << "dtype " << dtype_name(*t);
    }
}

// Each instruction's field table states where its fields sit; check one row per field
// against the placement the codec uses.
TEST(IsaDoc, FieldRowsGiveThePlacement) {
  const std::string doc = isa_reference_markdown();
  for (const OpcodeInfo& op : opcode_table()) {
    const size_t begin = doc.find("### " + std::string(op.mnemonic) + "\n");
    ASSERT_NE(begin, std::string::npos);
    const size_t end = doc.find("\n### ", begin + 1);
    const std::string section = doc.substr(begin, end == std::string::npos ? end : end - begin);
    for (const FieldPlacement& p : op.placement) {
      const FieldInfo& f = field_info(p.field);
      const std::string bits =
          f.bits == 1 ? std::to_string(p.bit)
                      : std::to_string(p.bit) + "-" + std::to_string(p.bit + f.bits - 1);
      const std::string row = "| `" + std::string(f.name) + "` | " + std::to_string(p.word) +
                              " | " + bits + " | " + std::to_string(f.bits) + " |";
      EXPECT_NE(section.find(row), std::string::npos) << op.mnemonic << ": " << row;
    }
  }
}

}  // namespace
}  // namespace s2::isa
