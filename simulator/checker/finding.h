#pragma once
// What the shadow-memory checker reports: structured findings (never exceptions), and their
// one-line-per-finding text form for s2sim --check.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "isa/container/executable.h"

namespace s2::sim::checker {

enum class FindingKind : uint8_t {
  // Bytes of a live tensor read after a different tensor overwrote them.
  StaleRead,
  // Bytes read that neither the initial data nor any earlier instruction wrote.
  NeverWritten,
  // An operand reaching past its tensor's reserved bytes, matching no tensor live at that
  // instruction, or reaching past the end of DRAM.
  OutOfBounds,
  // Two instructions touching overlapping bytes, at least one writing, with no dependency path
  // between them: their order is left to chance.
  Hazard,
};

std::string_view kind_name(FindingKind kind);  // "stale-read", "never-written", ...

// One instruction as findings name it.
struct InstructionRef {
  uint32_t index = 0;
  std::string mnemonic;  // "conv2d"
  std::string ops;       // source op names from the debug section, joined by '+'; may be empty
};

// Names instruction `index` of `exe` (its mnemonic and its debug-section op names).
InstructionRef instruction_ref(const isa::Executable& exe, uint32_t index);

struct Finding {
  FindingKind kind = FindingKind::StaleRead;
  InstructionRef instruction;  // the reading / accessing instruction; the later one of a hazard
  std::string slot;            // operand slot ("x", "dy"); for a hazard, the later one's operand
  std::string tensor;          // tensor the operand was attributed to; empty when none
  uint64_t begin = 0;          // the affected bytes: [begin, end) is their hull
  uint64_t end = 0;
  bool host = false;   // [begin, end) are host-memory addresses (isa::MemSpace::Host)
  uint64_t bytes = 0;  // how many bytes inside [begin, end) are affected
  // StaleRead: the instruction (absent: initial data) and tensor that last wrote the bytes.
  // Hazard: the earlier instruction, its operand and tensor.
  bool has_other = false;
  InstructionRef other;
  std::string other_slot;
  std::string other_tensor;
  // Short reason: "RAW" / "WAR" / "WAW" for hazards; for out-of-bounds "past the end of its
  // tensor", "outside any live tensor", "outside DRAM (size 0x...)".
  std::string detail;
};

// One line per finding, e.g.
//   stale-read: instruction 12 conv2d (layer1.0.conv1) reads x of tensor 'act3'
//   0x1000..0x1400 (1024 bytes), last written as tensor 'act7' by instruction 9 eltwise (add)
std::string format_finding(const Finding& finding);
std::string format_findings(const std::vector<Finding>& findings);

}  // namespace s2::sim::checker
