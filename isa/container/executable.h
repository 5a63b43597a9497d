#pragma once
// The in-memory form of an S2Train executable (*.bin), the one thing the compiler and the
// simulator share besides the target description. The file layout is in docs/container.md;
// writer.h serialises, reader.h parses and validates.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/encoding/instruction.h"

namespace s2::isa {

inline constexpr char kMagic[8] = {'S', '2', 'T', 'R', 'A', 'I', 'N', '\0'};
// The newest version this build reads and writes. It reads kOldestFormatVersion..kFormatVersion:
// version 2 added kZeroData, version 3 host memory (descriptors and tensors in MemSpace::Host,
// and the plan's host size), version 4 bn_bwd's field word (gate_act; isa.def's
// S2_FIELDS_SINCE); an older file is a newer one that does not use what came later.
// The writer writes the oldest version from 2 on that holds the file (format_version()), so
// a program without host memory or a non-relu bn_bwd gate stays readable by builds that know
// version 2.
inline constexpr uint32_t kFormatVersion = 4;
inline constexpr uint32_t kOldestFormatVersion = 1;
inline constexpr size_t kHeaderBytes = 64;
inline constexpr size_t kSectionEntryBytes = 32;
inline constexpr size_t kSectionAlignment = 64;
inline constexpr size_t kMaxTargetName = 31;
// What the header's target name may hold: printable ASCII without spaces (0x21-0x7e). The
// reader refuses anything else, so the assembler and the writer apply the same rule.
inline constexpr bool target_name_char(char c) {
  return c >= 0x21 && c <= 0x7e;
}
// Why `name` cannot be an executable's target name (too long, or the first byte outside
// target_name_char), as text that follows "target name "; empty when it can. The assembler and
// the target loader report it where the name is written; the writer checks it.
std::string target_name_problem(const std::string& name);
inline constexpr uint32_t kMaxSections = 16;
// Instructions per executable. A decoded Instruction holds every operand slot (a few KiB,
// against 8 bytes for the shortest encoding), so the count is bounded to keep the memory a
// file can ask for bounded too; compiled training steps have thousands at most.
inline constexpr uint32_t kMaxInstructions = 1u << 18;

enum class SectionKind : uint32_t {
  Instructions = 1,
  Tensors = 2,
  Data = 3,
  MemoryPlan = 4,
  Debug = 5,
};
const char* section_name(SectionKind kind);
std::optional<SectionKind> section_kind_from_code(uint32_t code);

// What a tensor is for; the memory planner and the reports group by it.
enum class TensorRole : uint8_t {
  Weight = 0,
  Activation = 1,
  Gradient = 2,
  WeightGradient = 3,
  OptimizerState = 4,
  Input = 5,
  Label = 6,
  Scratch = 7,
  State = 8,  // persistent non-trainable state, e.g. batch-norm running statistics
};
const char* role_name(TensorRole role);
std::optional<TensorRole> role_from_code(uint32_t code);
std::optional<TensorRole> role_from_name(const std::string& name);
const std::vector<TensorRole>& all_roles();

// TensorEntry::data_offset of a tensor without initial contents, and of one whose initial
// contents are all zeros (format version 2): those take no bytes of the data section, which
// matters because a training step's zeroed optimizer state is as large as its weights.
inline constexpr uint64_t kNoData = ~uint64_t{0};
inline constexpr uint64_t kZeroData = ~uint64_t{0} - 1;

struct TensorEntry {
  std::string name;
  TensorRole role = TensorRole::Scratch;
  DType dtype = DType::F32;
  std::vector<uint32_t> shape;  // 1..4 dimensions
  // Host tensors (format version 3) live in host memory behind the host link: the slots a
  // program swaps DRAM tensors out to. They hold no initial data.
  MemSpace space = MemSpace::Dram;
  uint64_t addr = 0;
  uint64_t size = 0;  // bytes reserved at addr (at least the dense size of shape)
  // Planned lifetime: the tensor is live from instruction `first` to instruction `last`,
  // inclusive.
  uint32_t first = 0;
  uint32_t last = 0;
  // Initial contents: dense_bytes() bytes (row-major) at this offset of the data section;
  // kZeroData (all zeros, no bytes in the data section) or kNoData (none).
  uint64_t data_offset = kNoData;

  uint64_t dense_bytes() const;  // saturates at UINT64_MAX
  // The tensor holds a value before the first instruction: its data or zeros.
  bool has_data() const { return data_offset != kNoData; }
  bool zero_data() const { return data_offset == kZeroData; }
  // Its initial bytes lie inside a data section of `section_bytes` bytes (zero data always
  // does: it takes none).
  bool data_within(uint64_t section_bytes) const;
  bool operator==(const TensorEntry& other) const;
};

struct MemoryPlanSummary {
  uint64_t dram_size = 0;   // bytes of DRAM address space the program uses, from address 0
  uint64_t arena_base = 0;  // the planned region for tensors that are not persistent
  uint64_t arena_size = 0;
  uint64_t lower_bound = 0;  // max over time of live arena bytes for the chosen order
  uint32_t alignment = 64;
  std::string planner;
  // Bytes of host memory the program uses, from host address 0 (format version 3; 0 before).
  uint64_t host_size = 0;

  bool operator==(const MemoryPlanSummary& other) const;
};

struct Executable;
// Whether the program uses host memory: a host tensor, a host descriptor or a host size.
bool uses_host_memory(const Executable& exe);
// The version the writer gives `exe`: the oldest layout that holds each instruction
// (codec.h's oldest_layout: 4 for a bn_bwd whose gate_act is not relu), at least 3 when it
// uses host memory, at least 2.
uint32_t format_version(const Executable& exe);

struct Executable {
  std::string target;
  std::vector<Instruction> instructions;
  std::vector<TensorEntry> tensors;
  std::vector<uint8_t> data;
  MemoryPlanSummary plan;
  // Source op names per instruction; empty, or one entry per instruction.
  std::vector<std::vector<std::string>> debug;

  const TensorEntry* find_tensor(const std::string& name) const;
};

}  // namespace s2::isa
