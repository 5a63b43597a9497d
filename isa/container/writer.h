#pragma once
// Serialises an Executable into the container format (docs/container.md). The writer does not
// judge the program: callers validate() first, and tests use it to build deliberately bad files.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container/executable.h"

namespace s2::isa {

std::vector<uint8_t> serialize(const Executable& exe);

// Writes serialize(exe) to `path` as write_file does, without assembling it in memory first:
// the data section goes to the file straight from exe.data.
void write_executable(const std::string& path, const Executable& exe);

struct ByteSpan {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Writes `bytes` to `path` through a fresh temporary file beside it (a name no file has),
// renamed into place only when complete: a failed or killed write leaves the previous file
// intact. A symbolic link to a file stays a link (its target is replaced; a dangling link is
// replaced by the file); a pipe or a character device (/dev/null, /dev/stdout) is written in
// place. Every output file of the tools is written here; check it with guard_output
// (output_guard.h) first. Throws UserError naming the path.
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
// The same for a file given in consecutive parts.
void write_file_parts(const std::string& path, const std::vector<ByteSpan>& parts);

}  // namespace s2::isa
