#pragma once
// Parses and validates an S2Train executable. Every defect - truncation, wrong magic, unknown
// version, bad CRC, sections out of range or overlapping, undecodable instructions, and the
// semantic checks of validator.h - is a FormatError naming the file, the section and the
// absolute file offset. Nothing in a bad file can crash or hang the reader.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container/executable.h"

namespace s2::isa {

struct SectionInfo {
  SectionKind kind;
  uint64_t offset;
  uint64_t size;
  uint32_t crc;
};

// Where things are in the file, for error messages and `s2sim info`.
struct FileLayout {
  uint32_t version = 0;
  std::vector<SectionInfo> sections;
  std::vector<uint64_t> instruction_offsets;  // file offset of each instruction
  std::vector<uint64_t> tensor_offsets;       // file offset of each tensor-table entry
  uint64_t plan_offset = 0;
  uint64_t data_offset = 0;  // file offset of the data section (0: absent)
  uint64_t debug_offset = 0;
};

// Parses `bytes` (the contents of `file_name`) and validates the result.
Executable read_executable(const std::vector<uint8_t>& bytes, const std::string& file_name,
                           FileLayout* layout = nullptr);

// Reads the file at `path`; a missing or unreadable file is a UserError naming it.
Executable load_executable(const std::string& path, FileLayout* layout = nullptr);

// Why the file at `path` cannot be read whole by its size ("" when it can, or does not exist):
// "is a directory", "is a pipe, not a regular file", "is a device or socket, not a regular
// file" (a pipe or a device has no size, and /dev/zero no end).
std::string not_readable_whole(const std::string& path);

// The bytes of the regular file at `path`; a missing or unreadable file, a directory, a pipe or
// a device is a UserError naming it.
std::vector<uint8_t> read_file_bytes(const std::string& path);

}  // namespace s2::isa
