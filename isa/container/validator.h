#pragma once
// Semantic validation of an executable: every check that needs more than one record at a
// time. The reader runs it on every file; the assembler and the compiler run it before they
// write one.
//
// Checked: each instruction is well formed (semantics.h); dependencies name earlier
// instructions only; every operand descriptor lies inside the program's DRAM; the program
// ends with exactly one `end`; tensor names are unique; tensors lie inside DRAM and hold
// their shape; lifetimes are in range; initial data lies inside the data section and no two
// initialised tensors overlap in DRAM; the memory-plan summary is consistent; debug info has
// one entry per instruction.

#include <string>

#include "isa/container/executable.h"
#include "isa/container/reader.h"

namespace s2::isa {

// Throws UserError (FormatError when `layout` gives file offsets) on the first problem.
void validate(const Executable& exe, const std::string& file_name,
              const FileLayout* layout = nullptr);

}  // namespace s2::isa
