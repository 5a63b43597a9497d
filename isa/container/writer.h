#pragma once
// Serialises an Executable into the container format (docs/container.md). The writer does not
// judge the program: callers validate() first, and tests use it to build deliberately bad files.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container/executable.h"

namespace s2::isa {

std::vector<uint8_t> serialize(const Executable& exe);

// Writes `bytes` to `path` through a fresh temporary file beside it (a name no file has),
// renamed into place only when complete: a failed or killed write leaves the previous file
// intact. Every output file of the tools is written here; check it with guard_output
// (output_guard.h) first. Throws UserError naming the path.
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace s2::isa
