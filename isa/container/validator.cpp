#include "isa/container/validator.h"

#include <algorithm>
#include <set>

#include "isa/common/hex.h"
#include "isa/container/byte_io.h"
#include "isa/encoding/semantics.h"

namespace s2::isa {
namespace {

class Validator {
 public:
  Validator(const Executable& exe, const std::string& file, const FileLayout* layout)
      : exe_(exe), file_(file), layout_(layout) {}

  void run() {
    check_plan();
    check_instructions();
    check_tensors();
    check_debug();
  }

 private:
  [[noreturn]] void fail(SectionKind section, const std::vector<uint64_t>* offsets, size_t index,
                         uint64_t fallback, const std::string& problem) const {
    if (layout_ != nullptr) {
      const uint64_t at = offsets && index < offsets->size() ? (*offsets)[index] : fallback;
      throw FormatError(file_, section_name(section), at, problem);
    }
    throw UserError(file_ + ": " + problem);
  }

  [[noreturn]] void fail_instruction(size_t i, const std::string& problem) const {
    const std::string what = "instruction " + std::to_string(i) + " (" +
                             std::string(exe_.instructions[i].info().mnemonic) + "): " + problem;
    fail(SectionKind::Instructions, layout_ ? &layout_->instruction_offsets : nullptr, i, 0, what);
  }

  [[noreturn]] void fail_tensor(size_t i, const std::string& problem) const {
    fail(SectionKind::Tensors, layout_ ? &layout_->tensor_offsets : nullptr, i, 0,
         "tensor " + std::to_string(i) + " '" + exe_.tensors[i].name + "': " + problem);
  }

  [[noreturn]] void fail_plan(const std::string& problem) const {
    fail(SectionKind::MemoryPlan, nullptr, 0, layout_ ? layout_->plan_offset : 0, problem);
  }

  uint64_t section_offset(SectionKind kind) const {
    if (layout_ != nullptr)
      for (const SectionInfo& s : layout_->sections)
        if (s.kind == kind) return s.offset;
    return 0;
  }

  bool inside_dram(uint64_t addr, uint64_t bytes) const {
    return addr <= exe_.plan.dram_size && bytes <= exe_.plan.dram_size - addr;
  }

  uint64_t space_size(MemSpace space) const {
    return space == MemSpace::Host ? exe_.plan.host_size : exe_.plan.dram_size;
  }

  bool inside(MemSpace space, uint64_t addr, uint64_t bytes) const {
    const uint64_t size = space_size(space);
    return addr <= size && bytes <= size - addr;
  }

  // "DRAM" or "host memory", as the messages name them.
  static std::string memory_name(MemSpace space) {
    return space == MemSpace::Host ? "host memory" : "DRAM";
  }

  void check_plan() const {
    const MemoryPlanSummary& p = exe_.plan;
    if (p.dram_size == 0) fail_plan("DRAM size is zero");
    if (p.alignment == 0 || (p.alignment & (p.alignment - 1)) != 0)
      fail_plan("alignment " + std::to_string(p.alignment) + " is not a power of two");
    if (!inside_dram(p.arena_base, p.arena_size))
      fail_plan("arena " + hex(p.arena_base) + "+" + hex(p.arena_size) +
                " lies outside the DRAM size " + hex(p.dram_size));
    if (p.lower_bound > p.arena_size)
      fail_plan("lower bound " + std::to_string(p.lower_bound) + " exceeds the arena size " +
                std::to_string(p.arena_size));
  }

  void check_instructions() const {
    const size_t n = exe_.instructions.size();
    if (n == 0)
      fail(SectionKind::Instructions, nullptr, 0, section_offset(SectionKind::Instructions),
           "the program has no instructions");
    for (size_t i = 0; i < n; ++i) {
      const Instruction& inst = exe_.instructions[i];
      const std::vector<std::string> problems = check_instruction(inst);
      if (!problems.empty()) fail_instruction(i, problems.front());
      if (inst.opcode() == Opcode::End && i + 1 != n)
        fail_instruction(i, "'end' before the last instruction");
      std::set<uint32_t> seen;
      for (uint32_t dep : inst.deps) {
        if (dep >= i)
          fail_instruction(
              i, "dependency on instruction " + std::to_string(dep) + ", which is not earlier");
        if (!seen.insert(dep).second)
          fail_instruction(i, "dependency on instruction " + std::to_string(dep) + " listed twice");
      }
      for (const OperandSig& sig : inst.info().operands) {
        const auto& d = inst.operand(sig.slot);
        if (!d) continue;
        const std::string name = "operand '" + std::string(slot_info(sig.slot).name) + "' ";
        const uint64_t size = space_size(d->space);
        if (!inside(d->space, d->addr, d->span_bytes()))
          fail_instruction(i, name + "descriptor outside " + memory_name(d->space) + ": " +
                                  hex(d->addr) + "+" + hex(d->span_bytes()) + " exceeds the " +
                                  memory_name(d->space) + " size " + hex(size));
        // Zero or overlapping strides let an input repeat its elements (a broadcast); a repeat
        // beyond one element per byte of the memory is no tensor a program holds, only work
        // without bound for a few bytes of descriptor.
        if (d->elements() > size)
          fail_instruction(i, name + "describes " + std::to_string(d->elements()) +
                                  " elements, more than the " + memory_name(d->space) +
                                  " size of " + std::to_string(size) +
                                  " bytes (an operand may repeat elements through zero strides, "
                                  "but never describe more than one per byte of its memory)");
      }
    }
    if (exe_.instructions.back().opcode() != Opcode::End)
      fail_instruction(n - 1, "the last instruction must be 'end'");
  }

  void check_tensors() const {
    const size_t n = exe_.instructions.size();
    std::set<std::string> names;
    struct Range {
      uint64_t begin, end;
      size_t tensor;
    };
    std::vector<Range> initialised;
    for (size_t i = 0; i < exe_.tensors.size(); ++i) {
      const TensorEntry& t = exe_.tensors[i];
      if (t.name.empty()) fail_tensor(i, "empty name");
      if (!names.insert(t.name).second) fail_tensor(i, "duplicate tensor name");
      if (t.size < t.dense_bytes())
        fail_tensor(i, "size " + std::to_string(t.size) + " bytes cannot hold its shape (" +
                           std::to_string(t.dense_bytes()) + " bytes)");
      if (!inside(t.space, t.addr, t.size))
        fail_tensor(i, "tensor outside " + memory_name(t.space) + ": " + hex(t.addr) + "+" +
                           hex(t.size) + " exceeds the " + memory_name(t.space) + " size " +
                           hex(space_size(t.space)));
      if (t.first > t.last || t.last >= n)
        fail_tensor(i, "lifetime " + std::to_string(t.first) + ".." + std::to_string(t.last) +
                           " is not inside 0.." + std::to_string(n - 1));
      if (!t.has_data()) continue;
      if (t.space == MemSpace::Host)
        fail_tensor(i, "a host tensor cannot have initial data: host memory starts empty");
      const uint64_t bytes = t.dense_bytes();
      if (!t.data_within(exe_.data.size()))
        fail_tensor(i, "initial data " + hex(t.data_offset) + "+" + hex(bytes) +
                           " runs past the data section (" + std::to_string(exe_.data.size()) +
                           " bytes)");
      initialised.push_back({t.addr, t.addr + bytes, i});
    }
    std::sort(initialised.begin(), initialised.end(),
              [](const Range& a, const Range& b) { return a.begin < b.begin; });
    for (size_t k = 1; k < initialised.size(); ++k) {
      const Range& a = initialised[k - 1];
      const Range& b = initialised[k];
      if (a.end > b.begin)
        fail_tensor(b.tensor, "initial data overlaps that of tensor '" +
                                  exe_.tensors[a.tensor].name + "' in DRAM (" + hex(a.begin) +
                                  ".." + hex(a.end) + ")");
    }
  }

  void check_debug() const {
    if (exe_.debug.empty() || exe_.debug.size() == exe_.instructions.size()) return;
    fail(SectionKind::Debug, nullptr, 0, layout_ ? layout_->debug_offset : 0,
         std::to_string(exe_.debug.size()) + " entries for " +
             std::to_string(exe_.instructions.size()) + " instructions");
  }

  const Executable& exe_;
  const std::string& file_;
  const FileLayout* layout_;
};

}  // namespace

void validate(const Executable& exe, const std::string& file_name, const FileLayout* layout) {
  Validator(exe, file_name, layout).run();
}

}  // namespace s2::isa
