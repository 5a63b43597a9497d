#pragma once
// Serialises an Executable into the container format (docs/container.md). The writer does not
// judge the program: callers validate() first, and tests use it to build deliberately bad files.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container/executable.h"

namespace s2::isa {

std::vector<uint8_t> serialize(const Executable& exe);

// Writes the serialised executable to `path` through a temporary file renamed into place, so
// a failed write never leaves a half-written file. Throws UserError naming the path.
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace s2::isa
