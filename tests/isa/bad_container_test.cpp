// Every way an executable can be malformed is rejected with a message naming the file, the
// section and the file offset. Each case starts from one valid file and introduces ONE defect:
// bytes are patched in place and the CRCs recomputed (refresh_crcs) unless the CRC itself is
// the defect, so the check under test is the one that fires.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "isa/common/crc32.h"
#include "isa/common/errors.h"
#include "isa/common/hex.h"
#include "isa/container/byte_io.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "isa/encoding/codec.h"

namespace s2::isa {
namespace {

using Bytes = std::vector<uint8_t>;

// ---- the valid starting point --------------------------------------------------------------

TensorDesc f32(uint64_t addr) {
  return TensorDesc::contiguous(addr, DType::F32, {4, 4});
}

// fill, barrier, eltwise (two deps), gemm, end; tensors "w1" and "w2" carry initial data.
Executable valid_program() {
  Executable exe;
  exe.target = "test";
  Instruction fill(Opcode::Fill);
  fill.set_operand(Slot::Dst, f32(0x300));
  Instruction barrier(Opcode::Barrier);
  barrier.deps = {0};
  Instruction add(Opcode::Eltwise);
  add.set_raw(Field::Op, static_cast<uint32_t>(EltwiseOp::Add));
  add.set_operand(Slot::A, f32(0x000));
  add.set_operand(Slot::B, f32(0x100));
  add.set_operand(Slot::Y, f32(0x200));
  add.deps = {0, 1};
  Instruction gemm(Opcode::Gemm);
  gemm.set_operand(Slot::A, f32(0x000));
  gemm.set_operand(Slot::B, f32(0x100));
  gemm.set_operand(Slot::Y, f32(0x400));
  gemm.deps = {2};
  Instruction end(Opcode::End);
  end.deps = {3};
  exe.instructions = {fill, barrier, add, gemm, end};

  auto tensor = [&](const std::string& name, TensorRole role, uint64_t addr, uint32_t first,
                    uint32_t last, bool init) {
    TensorEntry t;
    t.name = name;
    t.role = role;
    t.shape = {4, 4};
    t.addr = addr;
    t.size = t.dense_bytes();
    t.first = first;
    t.last = last;
    if (init) {
      t.data_offset = exe.data.size();
      exe.data.resize(exe.data.size() + t.size, static_cast<uint8_t>(0x40 + exe.tensors.size()));
    }
    exe.tensors.push_back(t);
  };
  tensor("w1", TensorRole::Weight, 0x000, 0, 4, true);
  tensor("w2", TensorRole::Weight, 0x100, 0, 4, true);
  tensor("sum", TensorRole::Activation, 0x200, 2, 2, false);
  tensor("acc", TensorRole::Scratch, 0x300, 0, 2, false);
  tensor("g", TensorRole::Activation, 0x400, 3, 4, false);

  exe.plan.dram_size = 0x1000;
  exe.plan.arena_base = 0x200;
  exe.plan.arena_size = 0x600;
  exe.plan.lower_bound = 0x100;
  exe.plan.alignment = 64;
  exe.plan.planner = "test";
  exe.debug = {{"zero"}, {}, {"add"}, {"fc"}, {}};
  return exe;
}

const Bytes& good_file() {
  static const Bytes bytes = serialize(valid_program());
  return bytes;
}

const FileLayout& good_layout() {
  static const FileLayout layout = [] {
    FileLayout l;
    read_executable(good_file(), "good.bin", &l);
    return l;
  }();
  return layout;
}

// ---- patching helpers, following the layout written by writer.cpp -------------------------

constexpr size_t kHeaderCrcAt = 20;
constexpr size_t kCountAt = 16;
constexpr size_t kHeaderSizeAt = 12;

struct Entry {
  size_t at;  // file offset of the section-table entry
  uint32_t kind;
  uint64_t offset;
  uint64_t size;
};

std::vector<Entry> entries(const Bytes& f) {
  std::vector<Entry> result;
  const uint32_t count = load_u32(&f[kCountAt]);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t at = kHeaderBytes + i * kSectionEntryBytes;
    result.push_back({at, load_u32(&f[at]), load_u64(&f[at + 8]), load_u64(&f[at + 16])});
  }
  return result;
}

Entry entry(const Bytes& f, SectionKind kind) {
  for (const Entry& e : entries(f))
    if (e.kind == static_cast<uint32_t>(kind)) return e;
  throw InternalError("test file has no such section");
}

void set_offset(Bytes* f, SectionKind kind, uint64_t offset) {
  store_u64(&(*f)[entry(*f, kind).at + 8], offset);
}
void set_size(Bytes* f, SectionKind kind, uint64_t size) {
  store_u64(&(*f)[entry(*f, kind).at + 16], size);
}

// Recomputes the CRC of every section that lies inside the file, then the header CRC (which
// covers the section table and therefore the section CRCs).
void refresh_crcs(Bytes* f) {
  for (const Entry& e : entries(*f))
    if (e.offset <= f->size() && e.size <= f->size() - e.offset)
      store_u32(&(*f)[e.at + 24], crc32(f->data() + e.offset, e.size));
  const size_t table_end = kHeaderBytes + load_u32(&(*f)[kCountAt]) * kSectionEntryBytes;
  store_u32(&(*f)[kHeaderCrcAt], 0);
  store_u32(&(*f)[kHeaderCrcAt], crc32(f->data(), table_end));
}

// Drops a section from the table; its bytes stay in the file, unreferenced.
void remove_section(Bytes* f, SectionKind kind) {
  const size_t at = entry(*f, kind).at;
  const uint32_t count = load_u32(&(*f)[kCountAt]);
  const size_t table_end = kHeaderBytes + count * kSectionEntryBytes;
  f->erase(f->begin() + static_cast<long>(at),
           f->begin() + static_cast<long>(at + kSectionEntryBytes));
  f->insert(f->begin() + static_cast<long>(table_end - kSectionEntryBytes), kSectionEntryBytes, 0);
  store_u32(&(*f)[kCountAt], count - 1);
  store_u32(&(*f)[kHeaderSizeAt], static_cast<uint32_t>(table_end - kSectionEntryBytes));
  refresh_crcs(f);
}

// File offset of word `word` of instruction `index`.
size_t instruction_word(size_t index, size_t word) {
  return good_layout().instruction_offsets.at(index) + 4 * word;
}

// File offset of the fixed part of tensor `index`'s entry (after its name): role, dtype, rank,
// reserved, shape[4], then addr +20, size +28, first +36, last +44 - 4, data_offset +44.
size_t tensor_field(size_t index, size_t field_offset) {
  return good_layout().tensor_offsets.at(index) + 2 +
         valid_program().tensors.at(index).name.size() + field_offset;
}
constexpr size_t kAddr = 20, kFirst = 36, kLast = 40, kDataOffset = 44;

// ---- checking the message ------------------------------------------------------------------

std::string where(const std::string& section, uint64_t offset) {
  return "bad.bin: section '" + section + "' at offset " + hex(offset) + ": ";
}

// The file is rejected with a FormatError whose message starts with the file, section and
// offset, and contains `problem`.
::testing::AssertionResult rejected(const Bytes& f, const std::string& section, uint64_t offset,
                                    const std::string& problem) {
  try {
    read_executable(f, "bad.bin");
  } catch (const FormatError& e) {
    const std::string message = e.what();
    const std::string prefix = where(section, offset);
    if (message.rfind(prefix, 0) == 0 && message.find(problem, prefix.size()) != std::string::npos)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "message: " << message << "\nexpected: " << prefix << "..." << problem << "...";
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "not a FormatError: " << e.what();
  }
  return ::testing::AssertionFailure() << "the file was accepted";
}

const char* name_of(SectionKind kind) {
  return section_name(kind);
}

TEST(BadContainer, StartingPointIsValid) {
  EXPECT_NO_THROW(read_executable(good_file(), "good.bin"));
  ASSERT_EQ(good_layout().sections.size(), 5u);
}

// ---- header and section table --------------------------------------------------------------

TEST(BadContainer, TruncatedFile) {
  const Bytes& good = good_file();
  for (size_t n : {size_t{0}, size_t{8}, size_t{40}, kHeaderBytes - 1})
    EXPECT_TRUE(
        rejected(Bytes(good.begin(), good.begin() + static_cast<long>(n)), "header", n,
                 "truncated file: " + std::to_string(n) + " bytes, the header alone needs 64"));
  for (size_t n : {kHeaderBytes, size_t{100}, size_t{kHeaderBytes + 5 * kSectionEntryBytes - 1}})
    EXPECT_TRUE(
        rejected(Bytes(good.begin(), good.begin() + static_cast<long>(n)), "header", n,
                 "truncated file: " + std::to_string(n) + " bytes, the section table ends at 224"));
  // Cut inside (or right at the start of) each section: that section no longer fits.
  for (const Entry& e : entries(good)) {
    const auto kind = static_cast<SectionKind>(e.kind);
    for (uint64_t cut : {e.offset, e.offset + e.size / 2, e.offset + e.size - 1}) {
      const Bytes f(good.begin(), good.begin() + static_cast<long>(cut));
      EXPECT_TRUE(rejected(f, name_of(kind), e.offset,
                           "section out of range: " + std::to_string(e.size) + " bytes at offset " +
                               hex(e.offset) + " run past the end of the " + std::to_string(cut) +
                               "-byte file"));
    }
  }
}

TEST(BadContainer, WrongMagic) {
  Bytes f = good_file();
  f[1] = 'X';
  EXPECT_TRUE(rejected(f, "header", 0, "wrong magic: not an S2Train executable"));
}

TEST(BadContainer, UnknownVersion) {
  for (uint32_t version : {0u, 5u}) {
    Bytes f = good_file();
    store_u32(&f[8], version);
    refresh_crcs(&f);
    EXPECT_TRUE(rejected(f, "header", 8,
                         "unknown format version " + std::to_string(version) +
                             " (this build reads versions 1 to 4)"));
  }
}

// Version 1 is version 2 without zero initial data: such a file still reads, and one that
// uses the marker is refused at the tensor.
TEST(BadContainer, ZeroInitialDataNeedsVersion2) {
  Bytes f = good_file();
  store_u32(&f[8], 1);
  refresh_crcs(&f);
  EXPECT_EQ(read_executable(f, "v1.bin").tensors.size(), valid_program().tensors.size());
  store_u64(&f[tensor_field(1, kDataOffset)], kZeroData);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[1],
                       "tensor 1: 'w2': zero initial data (offset 0xfffffffffffffffe) needs "
                       "format version 2, the file is version 1"));
}

TEST(BadContainer, BadHeaderCrc) {
  for (size_t at : {size_t{26}, size_t{kHeaderBytes + 8}, size_t{kHeaderBytes + 4 * 32 + 24}}) {
    Bytes f = good_file();
    f[at] ^= 0x01;
    EXPECT_TRUE(rejected(f, "header", kHeaderCrcAt, "bad header CRC: stored ")) << "byte " << at;
  }
}

TEST(BadContainer, BadSectionCrcInEachSection) {
  for (const Entry& e : entries(good_file())) {
    Bytes f = good_file();
    f[e.offset + e.size / 2] ^= 0x80;
    EXPECT_TRUE(
        rejected(f, name_of(static_cast<SectionKind>(e.kind)), e.offset, "bad CRC: stored "));
  }
}

TEST(BadContainer, SectionOutOfRange) {
  Bytes f = good_file();
  set_size(&f, SectionKind::MemoryPlan, uint64_t{1} << 40);
  refresh_crcs(&f);
  const uint64_t plan = entry(f, SectionKind::MemoryPlan).offset;
  EXPECT_TRUE(rejected(f, "memory-plan", plan, "section out of range"));

  f = good_file();
  set_offset(&f, SectionKind::Tensors, f.size() + 64);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", f.size() + 64, "section out of range"));

  // offset + size would wrap around 64 bits.
  f = good_file();
  set_offset(&f, SectionKind::Data, ~uint64_t{0} - 7);
  set_size(&f, SectionKind::Data, 16);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "data", ~uint64_t{0} - 7, "section out of range"));
}

// Issue 19 point 4: a decoded instruction takes far more memory than its words, so the count
// is bounded (kMaxInstructions), checked before any is decoded. The instruction section is
// moved to the end of the file and given one instruction more than the limit (words enough
// for the count-versus-words check).
TEST(BadContainer, InstructionCountOverTheLimit) {
  Bytes f = good_file();
  while (f.size() % kSectionAlignment != 0)
    f.push_back(0);
  const uint64_t at = f.size();
  const uint32_t count = kMaxInstructions + 1;
  f.resize(f.size() + 4 + 4 * 4 * uint64_t{count}, 0);
  store_u32(&f[at], count);
  set_offset(&f, SectionKind::Instructions, at);
  set_size(&f, SectionKind::Instructions, f.size() - at);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "instructions", at + 4,
                       "instruction count 262145 is more than the limit of 262144"));
}

TEST(BadContainer, OverlappingSections) {
  Bytes f = good_file();
  const Entry tensors = entry(f, SectionKind::Tensors);
  const Entry data = entry(f, SectionKind::Data);
  set_size(&f, SectionKind::Tensors, data.offset - tensors.offset + 8);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "data", data.offset,
                       "section overlaps section 'tensors' (" + hex(tensors.offset) + ".." +
                           hex(data.offset + 8) + ")"));

  f = good_file();
  set_offset(&f, SectionKind::MemoryPlan, kHeaderBytes);
  refresh_crcs(&f);
  EXPECT_TRUE(
      rejected(f, "memory-plan", kHeaderBytes, "section overlaps the header and section table"));
}

TEST(BadContainer, DuplicateSection) {
  Bytes f = good_file();
  const Entry tensors = entry(f, SectionKind::Tensors);
  store_u32(&f[tensors.at], static_cast<uint32_t>(SectionKind::Instructions));
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "header", tensors.at, "duplicate section 'instructions'"));
}

TEST(BadContainer, UnknownSectionKind) {
  Bytes f = good_file();
  const Entry data = entry(f, SectionKind::Data);
  store_u32(&f[data.at], 9);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "header", data.at, "unknown section kind 9"));
}

TEST(BadContainer, MissingRequiredSection) {
  for (SectionKind kind :
       {SectionKind::Instructions, SectionKind::Tensors, SectionKind::MemoryPlan}) {
    Bytes f = good_file();
    remove_section(&f, kind);
    EXPECT_TRUE(rejected(f, "header", 0,
                         std::string("required section '") + name_of(kind) + "' is missing"));
  }
}

TEST(BadContainer, OtherHeaderDefects) {
  Bytes f = good_file();
  store_u32(&f[kCountAt], 0);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "header", kCountAt, "section count 0 outside 1..16"));

  f = good_file();
  store_u32(&f[kHeaderSizeAt], 64);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "header", kHeaderSizeAt, "header size 64 does not match 5 sections"));

  f = good_file();
  const Entry data = entry(f, SectionKind::Data);
  f[data.at + 4] = 1;
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "header", data.at, "section 'data': reserved fields are not zero"));

  f = good_file();
  for (size_t i = 24; i < 24 + kMaxTargetName + 1; ++i)
    f[i] = 'x';
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "header", 24, "target name is not NUL-terminated"));
}

// ---- instructions --------------------------------------------------------------------------

TEST(BadContainer, UnknownOpcode) {
  unsigned unused = 0;
  while (find_opcode(static_cast<uint8_t>(unused)) != nullptr)
    ++unused;
  Bytes f = good_file();
  f[instruction_word(3, 0)] = static_cast<uint8_t>(unused);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "instructions", instruction_word(3, 0),
                       "instruction 3: unknown opcode " + hex(unused)));
}

TEST(BadContainer, StructuralDecodeErrorPointsAtTheWord) {
  // gemm's `a` descriptor: type word with rank 0.
  const size_t type_word = kHeaderWords + opcode_info(Opcode::Gemm).field_words + 2;
  Bytes f = good_file();
  store_u32(&f[instruction_word(3, type_word)], 0);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "instructions", instruction_word(3, type_word),
                       "instruction 3: operand 'a': rank 0 outside 1..4"));
}

TEST(BadContainer, DescriptorOutsideDram) {
  // High address word of gemm's third descriptor, `y`.
  const size_t word =
      kHeaderWords + opcode_info(Opcode::Gemm).field_words + 2 * kDescriptorWords + 1;
  Bytes f = good_file();
  store_u32(&f[instruction_word(3, word)], 1);
  refresh_crcs(&f);
  EXPECT_TRUE(
      rejected(f, "instructions", instruction_word(3, 0),
               "instruction 3 (gemm): operand 'y' descriptor outside DRAM: 0x100000400+0x40 "
               "exceeds the DRAM size 0x1000"));
}

// File offset of dependency `k` of instruction `index` (dependencies are the last words).
size_t dep_word(size_t index, size_t k) {
  const Instruction inst = valid_program().instructions.at(index);
  return instruction_word(index, encoded_words(inst) - inst.deps.size() + k);
}

TEST(BadContainer, DependencyOnALaterInstructionOrItself) {
  for (uint32_t dep : {3u, 4u, 1000u}) {
    Bytes f = good_file();
    store_u32(&f[dep_word(3, 0)], dep);
    refresh_crcs(&f);
    EXPECT_TRUE(rejected(f, "instructions", instruction_word(3, 0),
                         "instruction 3 (gemm): dependency on instruction " + std::to_string(dep) +
                             ", which is not earlier"));
  }
}

TEST(BadContainer, DuplicatedDependency) {
  Bytes f = good_file();
  store_u32(&f[dep_word(2, 1)], 0);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "instructions", instruction_word(2, 0),
                       "instruction 2 (eltwise): dependency on instruction 0 listed twice"));
}

TEST(BadContainer, LastInstructionIsNotEnd) {
  Bytes f = good_file();
  f[instruction_word(4, 0)] = static_cast<uint8_t>(Opcode::Barrier);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "instructions", instruction_word(4, 0),
                       "instruction 4 (barrier): the last instruction must be 'end'"));
}

TEST(BadContainer, EndInTheMiddle) {
  Bytes f = good_file();
  f[instruction_word(1, 0)] = static_cast<uint8_t>(Opcode::End);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "instructions", instruction_word(1, 0),
                       "instruction 1 (end): 'end' before the last instruction"));
}

TEST(BadContainer, InvalidInstructionSemantics) {
  // eltwise `op` field (bits 0-3 of word 2) set to a value outside the set.
  Bytes f = good_file();
  f[instruction_word(2, kHeaderWords)] = 15;
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "instructions", instruction_word(2, 0),
                       "instruction 2 (eltwise): field 'op' has no eltwise op with value 15"));
}

// ---- tensor table, data, plan, debug -------------------------------------------------------

TEST(BadContainer, TensorOverlapsAnotherInItsInitialData) {
  Bytes f = good_file();
  store_u64(&f[tensor_field(1, kAddr)], 0x20);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[1],
                       "tensor 1 'w2': initial data overlaps that of tensor 'w1' in DRAM "
                       "(0x0..0x40)"));
}

TEST(BadContainer, ZeroInitialDataCountsAsInitialData) {
  Bytes f = good_file();
  store_u64(&f[tensor_field(1, kDataOffset)], kZeroData);
  store_u64(&f[tensor_field(1, kAddr)], 0x20);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[1],
                       "tensor 1 'w2': initial data overlaps that of tensor 'w1' in DRAM "
                       "(0x0..0x40)"));
}

TEST(BadContainer, TensorOutsideDram) {
  Bytes f = good_file();
  store_u64(&f[tensor_field(4, kAddr)], 0xff0);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[4],
                       "tensor 4 'g': tensor outside DRAM: 0xff0+0x40 exceeds the DRAM size "
                       "0x1000"));
}

TEST(BadContainer, TensorLifetimeOutOfRange) {
  Bytes f = good_file();
  store_u32(&f[tensor_field(4, kLast)], 5);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[4],
                       "tensor 4 'g': lifetime 3..5 is not inside 0..4"));

  f = good_file();
  store_u32(&f[tensor_field(4, kFirst)], 4);
  store_u32(&f[tensor_field(4, kLast)], 3);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[4],
                       "tensor 4 'g': lifetime 4..3 is not inside 0..4"));
}

TEST(BadContainer, InitialDataPastTheDataSection) {
  Bytes f = good_file();
  store_u64(&f[tensor_field(1, kDataOffset)], 100);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[1],
                       "tensor 1 'w2': initial data 0x64+0x40 runs past the data section (128 "
                       "bytes)"));
}

TEST(BadContainer, DuplicateTensorNames) {
  Bytes f = good_file();
  f[good_layout().tensor_offsets[1] + 3] = '1';  // "w2" -> "w1"
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "tensors", good_layout().tensor_offsets[1],
                       "tensor 1 'w1': duplicate tensor name"));
}

TEST(BadContainer, DebugEntryCountMismatch) {
  Executable exe = valid_program();
  exe.debug.pop_back();
  const Bytes f = serialize(exe);
  EXPECT_TRUE(
      rejected(f, "debug", entry(f, SectionKind::Debug).offset, "4 entries for 5 instructions"));
}

// Grows a section by `extra` bytes; the padding before the next section (or bytes appended to
// the file) become its unexpected tail.
Bytes with_trailing_bytes(SectionKind kind, uint64_t extra) {
  Bytes f = good_file();
  const Entry e = entry(f, kind);
  uint64_t next = f.size();
  for (const Entry& other : entries(f))
    if (other.offset > e.offset && other.offset < next) next = other.offset;
  if (e.offset + e.size == f.size())
    f.resize(f.size() + extra, 0xee);
  else
    EXPECT_LE(e.offset + e.size + extra, next) << "no padding after the section to grow into";
  set_size(&f, kind, e.size + extra);
  refresh_crcs(&f);
  return f;
}

TEST(BadContainer, TrailingGarbageInASection) {
  for (SectionKind kind : {SectionKind::Tensors, SectionKind::MemoryPlan, SectionKind::Debug}) {
    const Entry e = entry(good_file(), kind);
    EXPECT_TRUE(rejected(with_trailing_bytes(kind, 3), name_of(kind), e.offset + e.size,
                         "3 unexpected bytes at the end"));
  }
  const Entry code = entry(good_file(), SectionKind::Instructions);
  EXPECT_TRUE(rejected(with_trailing_bytes(SectionKind::Instructions, 4), "instructions",
                       code.offset + code.size, "1 words after the last of 5 instructions"));
  EXPECT_TRUE(rejected(with_trailing_bytes(SectionKind::Instructions, 2), "instructions",
                       code.offset + 4, "not a whole number of 32-bit words"));
}

// ---- regressions: each of these files used to be accepted --------------------------------

// The "overlaps the header and section table" check once used only the table entries parsed
// so far, so a section could start inside a later entry.
TEST(BadContainer, SectionInsideALaterTableEntry) {
  Executable exe = valid_program();
  exe.tensors[1].data_offset = kNoData;
  exe.data.resize(64);
  Bytes f = serialize(exe);
  const uint64_t inside = kHeaderBytes + 3 * kSectionEntryBytes;  // the memory-plan entry
  set_offset(&f, SectionKind::Data, inside);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "data", inside, "section overlaps the header and section table"));
}

// Comparing only neighbours in offset order let an empty section between two overlapping
// ones hide the overlap.
TEST(BadContainer, OverlapBehindAnEmptySection) {
  Executable exe = valid_program();
  for (TensorEntry& t : exe.tensors)
    t.data_offset = kNoData;
  exe.data.clear();
  Bytes f = serialize(exe);
  const Entry tensors = entry(f, SectionKind::Tensors);
  set_offset(&f, SectionKind::Data, tensors.offset + 1);
  set_offset(&f, SectionKind::Debug, tensors.offset + 2);
  refresh_crcs(&f);
  EXPECT_TRUE(rejected(f, "debug", tensors.offset + 2, "section overlaps section 'tensors'"));
}

// If TensorDesc::span_bytes() wrapped around 64 bits, (2^31 * 2^31 + 15 + 1) * 4 = 2^64 + 64
// bytes would read as 64 and pass the DRAM bounds check.
TEST(BadContainer, DescriptorWhoseSpanWrapsAround) {
  Executable exe = valid_program();
  TensorDesc d = TensorDesc::contiguous(0x300, DType::F32, {2, 16});
  d.shape[0] = 0x80000001u;
  d.strides[0] = 0x80000000u;
  exe.instructions[0].set_operand(Slot::Dst, d);
  const Bytes f = serialize(exe);
  EXPECT_TRUE(rejected(f, "instructions", entry(f, SectionKind::Instructions).offset + 4,
                       "instruction 0 (fill): operand 'dst' descriptor outside DRAM"));
}

// If TensorEntry::dense_bytes() wrapped around 64 bits, 2^31 * 2^31 * 16 f32 elements would
// read as 0 bytes and a 64-byte reservation would "hold" the shape.
TEST(BadContainer, TensorWhoseSizeWrapsAround) {
  Executable exe = valid_program();
  exe.tensors[4].shape = {0x80000000u, 0x80000000u, 16, 1};
  EXPECT_TRUE(rejected(serialize(exe), "tensors", good_layout().tensor_offsets[4],
                       "tensor 4 'g': size 64 bytes cannot hold its shape"));
}

// ---- robustness ----------------------------------------------------------------------------

// Random single-byte changes and truncations, half of them with the CRCs repaired so the
// change reaches the parsers and the validator. Each must load or be a UserError; anything
// else (another exception, a crash, a hang) fails the test.
TEST(BadContainer, RandomMutationsNeverCrash) {
  std::mt19937 rng(12345);
  const Bytes& good = good_file();
  int rejected_count = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Bytes f = good;
    const unsigned what = rng() % 4;
    if (what == 3) {
      f.resize(rng() % good.size());
    } else {
      f[rng() % f.size()] = static_cast<uint8_t>(rng());
    }
    if (what >= 2 && f.size() >= kHeaderBytes && load_u32(&f[kCountAt]) <= kMaxSections &&
        f.size() >= kHeaderBytes + load_u32(&f[kCountAt]) * kSectionEntryBytes)
      refresh_crcs(&f);
    try {
      read_executable(f, "fuzz.bin");
    } catch (const UserError&) {
      ++rejected_count;
    }
  }
  EXPECT_GT(rejected_count, 1000);
}

}  // namespace
}  // namespace s2::isa
