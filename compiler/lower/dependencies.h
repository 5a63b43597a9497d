#pragma once
// Explicit dependencies of an S2Train program (DESIGN.md §4), found from the DRAM byte
// ranges the instructions touch, not from the graph: the memory plan lets unrelated tensors
// share addresses, and the hazards that reuse creates are just as real as a data edge.
//
// Each operand counts as its whole descriptor span [addr, addr + span_bytes()) (conservative
// for strided views). An instruction depends on every earlier one it conflicts with: the
// last writer of each byte it reads (RAW), the last writer and the readers since then of each
// byte it writes (WAW, WAR). The list is reduced to its transitively necessary members (an
// instruction already reached through another dependency is dropped), so it stays short.

#include <cstdint>
#include <vector>

#include "isa/encoding/instruction.h"

namespace s2::lower {

struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;  // exclusive
};

struct Accesses {
  std::vector<ByteRange> reads;   // In and InOut operands
  std::vector<ByteRange> writes;  // Out and InOut operands
};

// Where host memory's addresses start on the one line the ranges below use for both spaces.
inline constexpr uint64_t kHostLine = uint64_t{1} << 62;

// The byte ranges an instruction reads and writes (empty spans left out); a host operand's
// range is its address plus kHostLine.
Accesses accesses_of(const isa::Instruction& inst);

struct Program {
  std::vector<isa::Instruction> instructions;  // ends with `end`
  std::vector<uint32_t> index_of;              // per input instruction, its index here
};

// Gives each instruction of `body` (execution order, no `end`; existing deps are replaced)
// its dependencies and appends `end`, which depends on every instruction nothing else waits
// for. An instruction that would need more than isa::kMaxDeps dependencies is preceded by a
// `barrier` (which waits for every earlier instruction) and depends on it alone.
Program add_dependencies(std::vector<isa::Instruction> body);

}  // namespace s2::lower
