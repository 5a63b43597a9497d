#pragma once
// The S2Train assembler: text (docs/assembly.md) to an Executable. Meant for tests and
// hand-written kernels; the disassembler prints the same language, so
// assemble(disassemble(x)) == x for every executable whose data the text carries.

#include <string>

#include "isa/container/executable.h"

namespace s2::isa {

// Parses and validates; throws UserError listing every problem found as
// "FILE:LINE:COL: problem" (at most 20).
Executable assemble(const std::string& text, const std::string& file_name);

}  // namespace s2::isa
