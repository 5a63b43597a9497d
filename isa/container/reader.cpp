#include "isa/container/reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "isa/common/crc32.h"
#include "isa/common/hex.h"
#include "isa/container/byte_io.h"
#include "isa/container/validator.h"
#include "isa/encoding/codec.h"

namespace s2::isa {
namespace {

class Parser {
 public:
  Parser(const std::vector<uint8_t>& bytes, const std::string& file, FileLayout* layout)
      : bytes_(bytes), file_(file), layout_(*layout) {}

  Executable parse() {
    parse_header();
    for (const SectionInfo& s : layout_.sections)
      parse_section(s);
    for (SectionKind k : {SectionKind::Instructions, SectionKind::Tensors, SectionKind::MemoryPlan})
      if (!find(k))
        fail_header(0, std::string("required section '") + section_name(k) + "' is missing");
    return std::move(exe_);
  }

 private:
  [[noreturn]] void fail_header(uint64_t offset, const std::string& problem) {
    throw FormatError(file_, "header", offset, problem);
  }

  const SectionInfo* find(SectionKind kind) const {
    for (const SectionInfo& s : layout_.sections)
      if (s.kind == kind) return &s;
    return nullptr;
  }

  void parse_header() {
    const size_t n = bytes_.size();
    if (n < kHeaderBytes)
      fail_header(n, "truncated file: " + std::to_string(n) + " bytes, the header alone needs " +
                         std::to_string(kHeaderBytes));
    if (std::memcmp(bytes_.data(), kMagic, sizeof kMagic) != 0)
      fail_header(0, "wrong magic: not an S2Train executable (expected \"S2TRAIN\\0\")");
    layout_.version = load_u32(&bytes_[8]);
    if (layout_.version < kOldestFormatVersion || layout_.version > kFormatVersion)
      fail_header(8, "unknown format version " + std::to_string(layout_.version) +
                         " (this build reads versions " + std::to_string(kOldestFormatVersion) +
                         " to " + std::to_string(kFormatVersion) + ")");
    const uint32_t header_bytes = load_u32(&bytes_[12]);
    const uint32_t count = load_u32(&bytes_[16]);
    if (count == 0 || count > kMaxSections)
      fail_header(16, "section count " + std::to_string(count) + " outside 1.." +
                          std::to_string(kMaxSections));
    const size_t table_end = kHeaderBytes + size_t{count} * kSectionEntryBytes;
    if (header_bytes != table_end)
      fail_header(12, "header size " + std::to_string(header_bytes) + " does not match " +
                          std::to_string(count) + " sections (" + std::to_string(table_end) +
                          " bytes)");
    if (n < table_end)
      fail_header(n, "truncated file: " + std::to_string(n) + " bytes, the section table ends at " +
                         std::to_string(table_end));
    std::vector<uint8_t> head(bytes_.begin(), bytes_.begin() + static_cast<long>(table_end));
    store_u32(&head[20], 0);
    const uint32_t stored = load_u32(&bytes_[20]);
    const uint32_t computed = crc32(head.data(), head.size());
    if (stored != computed)
      fail_header(20, "bad header CRC: stored " + hex(stored) + ", computed " + hex(computed));
    const char* name = reinterpret_cast<const char*>(&bytes_[24]);
    const size_t name_len = strnlen(name, kMaxTargetName + 1);
    if (name_len > kMaxTargetName) fail_header(24, "target name is not NUL-terminated");
    exe_.target.assign(name, name_len);
    for (char c : exe_.target)
      if (!target_name_char(c)) fail_header(24, "target name has a non-printable character");

    for (uint32_t i = 0; i < count; ++i)
      parse_section_entry(kHeaderBytes + i * kSectionEntryBytes, table_end);
    check_overlaps();
  }

  void parse_section_entry(size_t at, uint64_t table_end) {
    const uint32_t code = load_u32(&bytes_[at]);
    const std::optional<SectionKind> kind = section_kind_from_code(code);
    if (!kind) fail_header(at, "unknown section kind " + std::to_string(code));
    if (find(*kind))
      fail_header(at, std::string("duplicate section '") + section_name(*kind) + "'");
    if (load_u32(&bytes_[at + 4]) != 0 || load_u32(&bytes_[at + 28]) != 0)
      fail_header(
          at, std::string("section '") + section_name(*kind) + "': reserved fields are not zero");
    const SectionInfo s{*kind, load_u64(&bytes_[at + 8]), load_u64(&bytes_[at + 16]),
                        load_u32(&bytes_[at + 24])};
    const uint64_t n = bytes_.size();
    if (s.offset > n || s.size > n - s.offset)
      throw FormatError(file_, section_name(s.kind), s.offset,
                        "section out of range: " + std::to_string(s.size) + " bytes at offset " +
                            hex(s.offset) + " run past the end of the " + std::to_string(n) +
                            "-byte file");
    if (s.offset < table_end && s.size > 0)
      throw FormatError(file_, section_name(s.kind), s.offset,
                        "section overlaps the header and section table");
    const uint32_t computed = crc32(bytes_.data() + s.offset, s.size);
    if (computed != s.crc)
      throw FormatError(file_, section_name(s.kind), s.offset,
                        "bad CRC: stored " + hex(s.crc) + ", computed " + hex(computed));
    layout_.sections.push_back(s);
  }

  // Sorted by offset, each non-empty section must start at or after the furthest end of all
  // sections before it (not only its neighbour: an empty section may sit in between).
  void check_overlaps() {
    std::vector<SectionInfo> sorted = layout_.sections;
    std::sort(sorted.begin(), sorted.end(),
              [](const SectionInfo& a, const SectionInfo& b) { return a.offset < b.offset; });
    const SectionInfo* furthest = nullptr;
    for (const SectionInfo& s : sorted) {
      if (s.size == 0) continue;
      if (furthest != nullptr && furthest->offset + furthest->size > s.offset)
        throw FormatError(file_, section_name(s.kind), s.offset,
                          std::string("section overlaps section '") + section_name(furthest->kind) +
                              "' (" + hex(furthest->offset) + ".." +
                              hex(furthest->offset + furthest->size) + ")");
      if (furthest == nullptr || s.offset + s.size > furthest->offset + furthest->size)
        furthest = &s;
    }
  }

  ByteReader reader_for(const SectionInfo& s) const {
    return ByteReader(bytes_.data(), s.offset, s.offset + s.size, file_, section_name(s.kind));
  }

  void parse_section(const SectionInfo& s) {
    ByteReader r = reader_for(s);
    switch (s.kind) {
      case SectionKind::Instructions:
        parse_instructions(r);
        break;
      case SectionKind::Tensors:
        parse_tensors(r);
        break;
      case SectionKind::Data:
        exe_.data.assign(bytes_.begin() + static_cast<long>(s.offset),
                         bytes_.begin() + static_cast<long>(s.offset + s.size));
        layout_.data_offset = s.offset;
        return;
      case SectionKind::MemoryPlan:
        parse_plan(r);
        break;
      case SectionKind::Debug:
        parse_debug(r);
        break;
    }
    if (!r.done()) r.fail(std::to_string(r.remaining()) + " unexpected bytes at the end");
  }

  void parse_instructions(ByteReader& r) {
    const uint32_t count = r.u32();
    if (r.remaining() % 4 != 0) r.fail("instruction words are not a whole number of 32-bit words");
    const size_t nwords = r.remaining() / 4;
    if (count > nwords / kHeaderWords)
      r.fail("instruction count " + std::to_string(count) + " cannot fit in " +
             std::to_string(nwords) + " words");
    if (count > kMaxInstructions)
      r.fail("instruction count " + std::to_string(count) + " is more than the limit of " +
             std::to_string(kMaxInstructions));
    const size_t base = r.offset();
    std::vector<uint32_t> words(nwords);
    for (uint32_t& w : words)
      w = r.u32();
    size_t pos = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t at = base + pos * 4;
      layout_.instruction_offsets.push_back(at);
      size_t used = 0;
      try {
        exe_.instructions.push_back(
            decode(words.data() + pos, nwords - pos, &used, layout_.version));
      } catch (const DecodeError& e) {
        r.fail_at(at + e.word() * 4, "instruction " + std::to_string(i) + ": " + e.what());
      }
      if (layout_.version < 3)
        for (const OperandSig& sig : exe_.instructions.back().info().operands)
          if (const auto& d = exe_.instructions.back().operand(sig.slot);
              d && d->space == MemSpace::Host)
            r.fail_at(at, "instruction " + std::to_string(i) + ": operand '" +
                              std::string(slot_info(sig.slot).name) +
                              "' names host memory, which needs format version 3; the file is "
                              "version " +
                              std::to_string(layout_.version));
      pos += used;
    }
    if (pos != nwords)
      r.fail_at(base + pos * 4, std::to_string(nwords - pos) + " words after the last of " +
                                    std::to_string(count) + " instructions");
  }

  void parse_tensors(ByteReader& r) {
    const uint32_t count = r.u32();
    constexpr size_t kMinEntry = 2 + 4 + 4 * kMaxRank + 8 + 8 + 4 + 4 + 8;
    if (count > r.remaining() / kMinEntry)
      r.fail("tensor count " + std::to_string(count) + " cannot fit in the section");
    for (uint32_t i = 0; i < count; ++i) {
      const size_t at = r.offset();
      layout_.tensor_offsets.push_back(at);
      const std::string where = "tensor " + std::to_string(i) + ": ";
      TensorEntry t;
      t.name = r.str();
      const uint8_t role = r.u8(), dtype = r.u8(), rank = r.u8(), space = r.u8();
      const std::optional<TensorRole> tr = role_from_code(role);
      if (!tr) r.fail_at(at, where + "'" + t.name + "': unknown role code " + std::to_string(role));
      const std::optional<DType> dt = dtype_from_code(dtype);
      if (!dt)
        r.fail_at(at, where + "'" + t.name + "': unknown dtype code " + std::to_string(dtype));
      if (rank < 1 || rank > kMaxRank)
        r.fail_at(at, where + "'" + t.name + "': rank " + std::to_string(rank) + " outside 1.." +
                          std::to_string(kMaxRank));
      if (layout_.version < 3 && space != 0)
        r.fail_at(at, where + "'" + t.name + "': reserved byte is not zero");
      if (space > static_cast<uint8_t>(MemSpace::Host))
        r.fail_at(at,
                  where + "'" + t.name + "': unknown address space code " + std::to_string(space));
      t.space = static_cast<MemSpace>(space);
      t.role = *tr;
      t.dtype = *dt;
      for (unsigned d = 0; d < kMaxRank; ++d) {
        const uint32_t v = r.u32();
        if (d < rank && v == 0)
          r.fail_at(at, where + "'" + t.name + "': dimension " + std::to_string(d) + " is zero");
        if (d >= rank && v != 0)
          r.fail_at(at, where + "'" + t.name + "': shape entry past the rank is not zero");
        if (d < rank) t.shape.push_back(v);
      }
      t.addr = r.u64();
      t.size = r.u64();
      t.first = r.u32();
      t.last = r.u32();
      t.data_offset = r.u64();
      if (t.zero_data() && layout_.version < 2)
        r.fail_at(at, where + "'" + t.name + "': zero initial data (offset " + hex(kZeroData) +
                          ") needs format version 2, the file is version " +
                          std::to_string(layout_.version));
      exe_.tensors.push_back(std::move(t));
    }
  }

  void parse_plan(ByteReader& r) {
    layout_.plan_offset = r.offset();
    MemoryPlanSummary& p = exe_.plan;
    p.dram_size = r.u64();
    p.arena_base = r.u64();
    p.arena_size = r.u64();
    p.lower_bound = r.u64();
    p.alignment = r.u32();
    p.planner = r.str();
    if (layout_.version >= 3) p.host_size = r.u64();
  }

  void parse_debug(ByteReader& r) {
    layout_.debug_offset = r.offset();
    const uint32_t count = r.u32();
    if (count > r.remaining() / 2) r.fail("entry count " + std::to_string(count) + " cannot fit");
    exe_.debug.resize(count);
    for (auto& names : exe_.debug) {
      const uint16_t n = r.u16();
      for (uint16_t k = 0; k < n; ++k)
        names.push_back(r.str());
    }
  }

  const std::vector<uint8_t>& bytes_;
  const std::string& file_;
  FileLayout& layout_;
  Executable exe_;
};

}  // namespace

Executable read_executable(const std::vector<uint8_t>& bytes, const std::string& file_name,
                           FileLayout* layout) {
  FileLayout local;
  FileLayout* l = layout ? layout : &local;
  *l = FileLayout{};
  Executable exe = Parser(bytes, file_name, l).parse();
  validate(exe, file_name, l);
  return exe;
}

std::string not_readable_whole(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) return "is a directory";
  if (!std::filesystem::exists(status) || std::filesystem::is_regular_file(status)) return "";
  return std::string("is ") + (std::filesystem::is_fifo(status) ? "a pipe" : "a device or socket") +
         ", not a regular file";
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  if (const std::string why = not_readable_whole(path); !why.empty())
    throw UserError(path + ": " + why +
                    (why == "is a directory" ? "" : "; write it to a file and give that"));
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw UserError(path + ": cannot open: " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) throw UserError(path + ": cannot determine the file size");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  // One bulk read: executables carry hundreds of MiB of weights.
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    throw UserError(path + ": read error: " + std::strerror(errno));
  return bytes;
}

Executable load_executable(const std::string& path, FileLayout* layout) {
  return read_executable(read_file_bytes(path), path, layout);
}

}  // namespace s2::isa
