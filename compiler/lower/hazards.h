#pragma once
// An independent check of a program's dependencies: every pair of instructions whose DRAM
// accesses conflict must be ordered by them. Unlike the dependency builder it compares every
// pair directly (quadratic), so a bug in one is not repeated in the other. The simulator's
// checked mode makes the same proof while it runs; this one is for compiler tests.

#include <string>
#include <vector>

#include "isa/encoding/instruction.h"

namespace s2::lower {

// One sentence per uncovered hazard ("instruction 7 (eltwise) writes 0x40..0x80, which
// instruction 3 (gemm) reads, without waiting for it (WAR)"); empty when all are covered.
// `limit` caps how many are reported.
std::vector<std::string> uncovered_hazards(const std::vector<isa::Instruction>& program,
                                           size_t limit = 20);

}  // namespace s2::lower
