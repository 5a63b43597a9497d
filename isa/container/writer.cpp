#include "isa/container/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "isa/common/crc32.h"
#include "isa/common/errors.h"
#include "isa/container/byte_io.h"
#include "isa/encoding/codec.h"

namespace s2::isa {
namespace {

// write_file_parts leaves every aligned block of this many zero bytes as a hole: the file reads
// back the same, but the zeros take neither page cache nor disk (a training step's zeroed
// optimizer state is half of gpt2-small's 950 MiB of data, and on a virtual machine the first
// touch of fresh page-cache memory costs more than the copy).
constexpr size_t kHoleBlock = 64 * 1024;

const uint8_t* zero_block() {
  static const std::vector<uint8_t> zeros(kHoleBlock, 0);
  return zeros.data();
}

// write_all hands the kernel at most this many bytes per call. One call of hundreds of MiB is
// several times slower into the page cache than the same bytes in 1 MiB calls (measured on
// Linux 6.18 / ext4: 498 MB in 0.7-1.6 s against 0.16-0.45 s).
constexpr size_t kWriteChunk = 1024 * 1024;

// Writes [data, data + size) at the file's position; false (errno set) on failure.
bool write_all(int fd, const uint8_t* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, std::min(size - done, kWriteChunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

std::vector<uint8_t> instructions_section(const Executable& exe, uint32_t version) {
  // The compiler's programs are far below the limit; one above it would not read back.
  if (exe.instructions.size() > kMaxInstructions)
    throw UserError("the program has " + std::to_string(exe.instructions.size()) +
                    " instructions, more than the limit of " + std::to_string(kMaxInstructions) +
                    " of an executable");
  std::vector<uint32_t> words;
  for (const Instruction& inst : exe.instructions)
    encode(inst, &words, version);
  ByteWriter w;
  w.u32(static_cast<uint32_t>(exe.instructions.size()));
  for (uint32_t word : words)
    w.u32(word);
  return std::move(w.bytes());
}

std::vector<uint8_t> tensors_section(const Executable& exe) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(exe.tensors.size()));
  for (const TensorEntry& t : exe.tensors) {
    w.str(t.name);
    w.u8(static_cast<uint8_t>(t.role));
    w.u8(static_cast<uint8_t>(t.dtype));
    w.u8(static_cast<uint8_t>(t.shape.size()));
    w.u8(static_cast<uint8_t>(t.space));
    for (size_t i = 0; i < kMaxRank; ++i)
      w.u32(i < t.shape.size() ? t.shape[i] : 0);
    w.u64(t.addr);
    w.u64(t.size);
    w.u32(t.first);
    w.u32(t.last);
    w.u64(t.data_offset);
  }
  return std::move(w.bytes());
}

std::vector<uint8_t> plan_section(const MemoryPlanSummary& plan, uint32_t version) {
  ByteWriter w;
  w.u64(plan.dram_size);
  w.u64(plan.arena_base);
  w.u64(plan.arena_size);
  w.u64(plan.lower_bound);
  w.u32(plan.alignment);
  w.str(plan.planner);
  if (version >= 3) w.u64(plan.host_size);
  return std::move(w.bytes());
}

std::vector<uint8_t> debug_section(const Executable& exe) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(exe.debug.size()));
  for (const auto& names : exe.debug) {
    w.u16(static_cast<uint16_t>(names.size()));
    for (const std::string& n : names)
      w.str(n);
  }
  return std::move(w.bytes());
}

// The file in pieces: every byte before the data section, the data section itself (borrowed
// from the Executable, often hundreds of MiB), and every byte after it. Written in order they
// are the file, so the data section is never copied into a buffer of its own.
struct Layout {
  std::vector<uint8_t> head;
  const uint8_t* data = nullptr;
  size_t data_size = 0;
  std::vector<uint8_t> tail;
};

Layout layout(const Executable& exe) {
  // A section's bytes: built here, or (the data section) borrowed.
  struct Section {
    SectionKind kind;
    std::vector<uint8_t> owned;
    const uint8_t* data = nullptr;
    size_t size = 0;
  };
  std::vector<Section> sections;
  auto built = [&](SectionKind kind, std::vector<uint8_t> bytes) {
    sections.push_back({kind, std::move(bytes)});
    sections.back().data = sections.back().owned.data();
    sections.back().size = sections.back().owned.size();
  };
  sections.reserve(5);
  const uint32_t version = format_version(exe);
  built(SectionKind::Instructions, instructions_section(exe, version));
  built(SectionKind::Tensors, tensors_section(exe));
  sections.push_back({SectionKind::Data, {}, exe.data.data(), exe.data.size()});
  built(SectionKind::MemoryPlan, plan_section(exe.plan, version));
  if (!exe.debug.empty()) built(SectionKind::Debug, debug_section(exe));

  S2_CHECK(target_name_problem(exe.target).empty(),
           "serialize: target name '" + exe.target + "' " + target_name_problem(exe.target) +
               " (the assembler and the target loader refuse such names)");
  ByteWriter w;
  w.raw(kMagic, sizeof kMagic);
  w.u32(version);
  const size_t table_bytes = sections.size() * kSectionEntryBytes;
  w.u32(static_cast<uint32_t>(kHeaderBytes + table_bytes));
  w.u32(static_cast<uint32_t>(sections.size()));
  w.u32(0);  // header CRC, filled in below
  char target[kMaxTargetName + 1] = {};
  std::memcpy(target, exe.target.data(), exe.target.size());
  w.raw(target, sizeof target);
  w.u64(0);  // reserved

  // Section table, then the sections, each starting on a kSectionAlignment boundary.
  size_t offset = kHeaderBytes + table_bytes;
  for (const Section& s : sections) {
    offset = (offset + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
    w.u32(static_cast<uint32_t>(s.kind));
    w.u32(0);
    w.u64(offset);
    w.u64(s.size);
    w.u32(crc32(s.data, s.size));
    w.u32(0);
    offset += s.size;
  }
  const uint32_t header_crc = crc32(w.bytes().data(), w.size());
  store_u32(w.bytes().data() + 20, header_crc);
  Layout out;
  ByteWriter* part = &w;
  ByteWriter after;
  size_t at = w.size();  // the file offset `part` ends at
  for (const Section& s : sections) {
    const size_t pad = (kSectionAlignment - at % kSectionAlignment) % kSectionAlignment;
    for (size_t i = 0; i < pad; ++i)
      part->u8(0);
    at += pad;
    if (s.kind == SectionKind::Data) {
      out.data = s.data;
      out.data_size = s.size;
      part = &after;
    } else {
      part->raw(s.data, s.size);
    }
    at += s.size;
  }
  out.head = std::move(w.bytes());
  out.tail = std::move(after.bytes());
  return out;
}

}  // namespace

std::vector<uint8_t> serialize(const Executable& exe) {
  const Layout l = layout(exe);
  std::vector<uint8_t> bytes;
  bytes.reserve(l.head.size() + l.data_size + l.tail.size());
  bytes.insert(bytes.end(), l.head.begin(), l.head.end());
  bytes.insert(bytes.end(), l.data, l.data + l.data_size);
  bytes.insert(bytes.end(), l.tail.begin(), l.tail.end());
  return bytes;
}

void write_executable(const std::string& path, const Executable& exe) {
  const Layout l = layout(exe);
  write_file_parts(
      path,
      {{l.head.data(), l.head.size()}, {l.data, l.data_size}, {l.tail.data(), l.tail.size()}});
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file_parts(path, {{bytes.data(), bytes.size()}});
}

void write_file_parts(const std::string& path, const std::vector<ByteSpan>& parts) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
    // A pipe or a character device (/dev/null, /dev/stdout, a shell's >(...)) takes the bytes in
    // place and in order: it holds nothing a temporary file could keep, and renaming one onto
    // it would replace the pipe or device itself.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    int err = fd < 0 ? errno : 0;
    for (const ByteSpan& part : parts)
      if (err == 0 && !write_all(fd, part.data, part.size)) err = errno;
    if (fd >= 0 && ::close(fd) != 0 && err == 0) err = errno;
    if (err != 0) throw UserError(path + ": cannot write: " + std::strerror(err));
    return;
  }
  // A symbolic link to a file stays a link: its target is what gets replaced.
  std::string target = path;
  std::error_code ec;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec))) {
    const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
    if (!ec) target = resolved.string();
  }
  // A fresh temporary name beside the output (O_EXCL: never an existing file, such as an
  // unrelated out.bin.tmp), created with the usual permissions (0666 less the umask). Its stem
  // is the output's name cut to 200 bytes, so that a name up to the longest a file may have
  // leaves room for the suffix.
  const std::filesystem::path target_path(target);
  const std::string stem =
      (target_path.parent_path() / target_path.filename().string().substr(0, 200)).string();
  std::string tmp;
  int fd = -1;
  for (unsigned attempt = 0; fd < 0; ++attempt) {
    tmp = stem + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(attempt);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt >= 1000))
      throw UserError(path + ": cannot write: " + std::strerror(errno));
  }
  int err = 0;
  uint64_t offset = 0;  // of the part's first byte in the file
  for (const ByteSpan& part : parts) {
    size_t start = 0;  // the part's first byte not yet written
    for (size_t i = 0; err == 0 && i < part.size;) {
      // Up to the next block boundary of the file, so holes are whole aligned blocks.
      const size_t step = std::min<size_t>(
          part.size - i, kHoleBlock - static_cast<size_t>((offset + i) % kHoleBlock));
      if (step == kHoleBlock && std::memcmp(part.data + i, zero_block(), kHoleBlock) == 0) {
        if (!write_all(fd, part.data + start, i - start) ||
            ::lseek(fd, static_cast<off_t>(offset + i + step), SEEK_SET) < 0)
          err = errno;
        start = i + step;
      }
      i += step;
    }
    if (err == 0 && !write_all(fd, part.data + start, part.size - start)) err = errno;
    offset += part.size;
  }
  // A file that ends in a hole gets its length here.
  if (err == 0 && ::ftruncate(fd, static_cast<off_t>(offset)) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    std::remove(tmp.c_str());
    throw UserError(path + ": cannot write: " + std::strerror(err));
  }
}

}  // namespace s2::isa
