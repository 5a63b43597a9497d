// Host memory in the ISA (issue 20 point 1): descriptors and tensors in MemSpace::Host, written
// `@host:ADDR` in assembly, only `copy` may name them, and the container holds them from format
// version 3 on, the writer giving a program without host memory version 2 as before.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "isa/asm/assembler.h"
#include "isa/asm/disassembler.h"
#include "isa/common/crc32.h"
#include "isa/common/errors.h"
#include "isa/container/byte_io.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "isa/encoding/codec.h"
#include "isa/encoding/semantics.h"

namespace s2::isa {
namespace {

// A tensor swapped out to host memory and back: DRAM a -> host h -> DRAM b.
const char* const kSwap =
    ".target t\n"
    ".tensor a scratch f32[4,8] @0x0 data=fill(1.5)\n"
    ".tensor b scratch f32[4,8] @0x80\n"
    ".tensor h scratch f32[4,8] @host:0x40\n"
    "copy src=a dst=h\n"
    "copy src=h dst=b deps=0\n"
    "end deps=1\n";

// Recomputes every section's CRC and then the header's (docs/container.md: each section table
// entry holds its CRC at +24; the header CRC at 20 covers the header and the table).
void refresh_crcs(std::vector<uint8_t>& f, const FileLayout& layout) {
  for (size_t i = 0; i < layout.sections.size(); ++i) {
    const SectionInfo& s = layout.sections[i];
    store_u32(&f[kHeaderBytes + i * kSectionEntryBytes + 24], crc32(f.data() + s.offset, s.size));
  }
  const size_t table_end = kHeaderBytes + layout.sections.size() * kSectionEntryBytes;
  store_u32(&f[20], 0);
  store_u32(&f[20], crc32(f.data(), table_end));
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(HostMemory, AssemblyNamesHostAddressesAndTheSizeFollows) {
  const Executable exe = assemble(kSwap, "swap.s2asm");
  ASSERT_EQ(exe.tensors.size(), 3u);
  EXPECT_EQ(exe.tensors[2].space, MemSpace::Host);
  EXPECT_EQ(exe.tensors[2].addr, 0x40u);
  EXPECT_EQ(exe.instructions[0].get(Slot::Dst).space, MemSpace::Host);
  EXPECT_EQ(exe.instructions[0].get(Slot::Src).space, MemSpace::Dram);
  EXPECT_EQ(exe.plan.host_size, 0xc0u) << "the end of the highest host tensor";
  EXPECT_EQ(exe.plan.dram_size, 0x100u) << "host tensors do not count in DRAM";
  EXPECT_TRUE(uses_host_memory(exe));
  // A descriptor written out in full, and an explicit .host size.
  const Executable explicit_size = assemble(
      ".target t\n.host 0x1000\n.tensor a scratch f32[4] @0x0 data=fill(1)\n"
      "copy src=a dst=f32[4]@host:0x200\nend deps=0\n",
      "d.s2asm");
  EXPECT_EQ(explicit_size.plan.host_size, 0x1000u);
  EXPECT_EQ(explicit_size.instructions[0].get(Slot::Dst).space, MemSpace::Host);
  EXPECT_EQ(explicit_size.instructions[0].get(Slot::Dst).addr, 0x200u);
}

TEST(HostMemory, RoundTripsThroughTheContainerAsVersion3AndThroughText) {
  const Executable exe = assemble(kSwap, "swap.s2asm");
  const std::vector<uint8_t> bytes = serialize(exe);
  EXPECT_EQ(load_u32(&bytes[8]), 3u);
  FileLayout layout;
  const Executable back = read_executable(bytes, "swap.bin", &layout);
  EXPECT_EQ(layout.version, 3u);
  EXPECT_EQ(back.tensors, exe.tensors);
  EXPECT_EQ(back.instructions, exe.instructions);
  EXPECT_EQ(back.plan, exe.plan);
  // Text: `.host` and `@host:` come back, and the text assembles to the same bytes.
  const std::string text = disassemble(back);
  EXPECT_NE(text.find(".host 0xc0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("@host:0x40"), std::string::npos) << text;
  EXPECT_EQ(serialize(assemble(text, "again.s2asm")), bytes);
  // Without host memory the writer keeps version 2, which builds that know no host read.
  const Executable plain = assemble(
      ".target t\n.tensor a scratch f32[4] @0x0 data=fill(1)\nfill dst=a\nend deps=0\n", "p");
  EXPECT_EQ(load_u32(&serialize(plain)[8]), 2u);
}

TEST(HostMemory, TheDescriptorBitNeedsVersion3) {
  std::vector<uint8_t> bytes = serialize(assemble(kSwap, "swap.s2asm"));
  FileLayout layout;
  read_executable(bytes, "swap.bin", &layout);
  // Claim version 2: the first instruction's host operand is refused where it is encoded.
  store_u32(&bytes[8], 2);
  refresh_crcs(bytes, layout);
  const std::string m = message_of([&] { read_executable(bytes, "v2.bin"); });
  EXPECT_NE(m.find("v2.bin: section 'instructions'"), std::string::npos) << m;
  EXPECT_NE(m.find("instruction 0: operand 'dst' names host memory, which needs format version "
                   "3; the file is version 2"),
            std::string::npos)
      << m;
}

TEST(HostMemory, ReservedTypeWordBitsAreStillRefused) {
  Instruction copy(Opcode::Copy);
  copy.set_operand(Slot::Src, TensorDesc::contiguous(0, DType::F32, {4}));
  copy.set_operand(Slot::Dst, TensorDesc::contiguous(0x40, DType::F32, {4}));
  std::vector<uint32_t> words;
  encode(copy, &words);
  const size_t type_word = 2 + copy.info().field_words + 2;  // first descriptor's third word
  words[type_word] |= 1u << 8;
  size_t used = 0;
  const std::string m = message_of([&] { decode(words.data(), words.size(), &used); });
  EXPECT_NE(m.find("reserved bits set in the type word"), std::string::npos) << m;
  words[type_word] &= ~(1u << 8);
  words[type_word] |= 1u << 7;
  EXPECT_EQ(decode(words.data(), words.size(), &used).get(Slot::Src).space, MemSpace::Host);
}

TEST(HostMemory, OnlyCopyReachesHostMemoryAndNeverHostToHost) {
  Instruction fill(Opcode::Fill);
  TensorDesc host = TensorDesc::contiguous(0, DType::F32, {4});
  host.space = MemSpace::Host;
  fill.set_operand(Slot::Dst, host);
  std::vector<std::string> problems = check_instruction(fill);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "operand 'dst' is in host memory: only copy reaches host memory (over the host link)");

  Instruction copy(Opcode::Copy);
  copy.set_operand(Slot::Src, host);
  copy.set_operand(Slot::Dst, host);
  problems = check_instruction(copy);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "copy from host memory to host memory: a copy has at least one side in DRAM");

  // Through the assembler: the line and column of the instruction.
  const std::string m = message_of([] {
    assemble(".target t\n.tensor h scratch f32[4] @host:0x0\nfill dst=h\nend deps=0\n",
             "fill.s2asm");
  });
  EXPECT_NE(m.find("fill.s2asm:3:1:"), std::string::npos) << m;
  EXPECT_NE(m.find("operand 'dst' is in host memory"), std::string::npos) << m;
}

TEST(HostMemory, TheValidatorBoundsHostMemoryAndRefusesHostData) {
  // A host descriptor past the plan's host size (instructions are checked first), then a host
  // tensor past it.
  Executable exe = assemble(kSwap, "swap.s2asm");
  exe.plan.host_size = 0x80;
  std::string m = message_of([&] { read_executable(serialize(exe), "small.bin"); });
  EXPECT_NE(m.find("instruction 0 (copy): operand 'dst' descriptor outside host memory: "
                   "0x40+0x80 exceeds the host memory size 0x80"),
            std::string::npos)
      << m;
  TensorDesc low = TensorDesc::contiguous(0, DType::F32, {4, 8});  // copies inside the size
  low.space = MemSpace::Host;
  exe.instructions[0].set_operand(Slot::Dst, low);
  exe.instructions[1].set_operand(Slot::Src, low);
  m = message_of([&] { read_executable(serialize(exe), "small.bin"); });
  EXPECT_NE(m.find("tensor 2 'h': tensor outside host memory: 0x40+0x80 exceeds the host memory "
                   "size 0x80"),
            std::string::npos)
      << m;
  // Initial data in host memory.
  m = message_of([] {
    assemble(
        ".target t\n.tensor h scratch f32[4] @host:0x0 data=fill(1)\n"
        ".tensor a scratch f32[4] @0x0\ncopy src=h dst=a\nend deps=0\n",
        "data.s2asm");
  });
  EXPECT_NE(m.find("a host tensor cannot have initial data: host memory starts empty"),
            std::string::npos)
      << m;
}

TEST(HostMemory, AnUnknownSpaceCodeIsRefused) {
  const Executable exe = assemble(kSwap, "swap.s2asm");
  std::vector<uint8_t> bytes = serialize(exe);
  FileLayout layout;
  read_executable(bytes, "swap.bin", &layout);
  // The tensor entry: u16 name length, name, role, dtype, rank, space.
  const size_t space_at = layout.tensor_offsets[2] + 2 + exe.tensors[2].name.size() + 3;
  ASSERT_EQ(bytes[space_at], 1u);
  bytes[space_at] = 2;
  refresh_crcs(bytes, layout);
  const std::string m = message_of([&] { read_executable(bytes, "space.bin"); });
  EXPECT_NE(m.find("tensor 2: 'h': unknown address space code 2"), std::string::npos) << m;
}

}  // namespace
}  // namespace s2::isa
