#pragma once
// Prints an Executable as S2Train assembly text (docs/assembly.md) that the assembler reads
// back to the same executable.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container/executable.h"

namespace s2::isa {

struct DisasmOptions {
  // Tensors with more elements than this print their initial data as a summary comment-like
  // marker `data=<N bytes crc32=0x...>` that the assembler refuses; 0 prints everything.
  uint64_t data_limit = 64;
};

std::string disassemble(const Executable& exe, const DisasmOptions& options = {});

// Each instruction as it appears in the listing (without the index prefix), resolving operand
// descriptors to tensor names where they match a tensor exactly.
std::vector<std::string> format_instructions(const Executable& exe);

}  // namespace s2::isa
