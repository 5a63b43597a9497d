#include "simulator/checker/operand_access.h"

#include <utility>

#include "isa/common/hex.h"

namespace s2::sim::checker {
namespace {

Finding out_of_bounds(const isa::Executable& exe, uint32_t index, const OperandAccess& op,
                      const ByteSet& bad, std::string detail, bool host, uint64_t base) {
  Finding f;
  f.kind = FindingKind::OutOfBounds;
  f.instruction = instruction_ref(exe, index);
  f.slot = std::string(isa::slot_info(op.slot).name);
  if (op.tensor >= 0) f.tensor = exe.tensors[static_cast<size_t>(op.tensor)].name;
  const Interval h = hull(bad);
  f.host = host;
  f.begin = h.begin - base;
  f.end = h.end - base;
  f.bytes = total_bytes(bad);
  f.detail = std::move(detail);
  return f;
}

InstructionAccess collect_one(const isa::Executable& exe,
                              const std::vector<isa::TensorEntry>& tensors,
                              const TensorAttribution& attribution, const CheckedSpaces& spaces,
                              uint32_t index) {
  const isa::Instruction& inst = exe.instructions[index];
  InstructionAccess acc;
  for (const isa::OperandSig& sig : inst.info().operands) {
    const std::optional<isa::TensorDesc>& desc = inst.operand(sig.slot);
    if (!desc) continue;
    OperandAccess op;
    op.slot = sig.slot;
    op.read = sig.access != isa::Access::Out;
    op.write = sig.access != isa::Access::In;
    // The descriptor on the checker's address line, and its space's bounds there.
    const bool host = desc->space == isa::MemSpace::Host;
    const uint64_t base = spaces.base(desc->space);
    const uint64_t limit = isa::saturating_add(base, spaces.size(desc->space));
    isa::TensorDesc placed = *desc;
    placed.addr = isa::saturating_add(desc->addr, base);
    const ByteSet all = byte_set(placed);
    if (all.empty()) continue;
    op.bytes = clip(all, base, limit);
    TensorAttribution::Attribution a = attribution.attribute(
        placed.addr, hull(all).end, index, op.write && !op.read, /*want_readable=*/op.read);
    op.tensor = a.primary;
    op.readable = std::move(a.readable);

    auto report = [&](const ByteSet& bad, std::string detail) {
      acc.out_of_bounds.push_back(
          out_of_bounds(exe, index, op, bad, std::move(detail), host, base));
    };
    const ByteSet beyond = outside(all, base, limit);
    if (!beyond.empty())
      report(beyond, std::string(host ? "outside host memory" : "outside DRAM") + " (size " +
                         hex(spaces.size(desc->space)) + ")");
    if (op.tensor >= 0) {
      const isa::TensorEntry& t = tensors[static_cast<size_t>(op.tensor)];
      const uint64_t end = isa::saturating_add(t.addr, t.size);
      op.in_tensor = clip(op.bytes, t.addr, end);
      const ByteSet past = outside(op.bytes, t.addr, end);
      if (!past.empty())
        report(past, "past its tensor's reserved bytes " + std::string(host ? "host:" : "") +
                         hex(t.addr - base) + ".." + hex(end - base));
    } else {
      op.in_tensor = op.bytes;
      std::string detail = "outside any tensor live at this instruction";
      const int64_t dead = attribution.any_containing(placed.addr);
      if (dead >= 0) {
        const isa::TensorEntry& t = tensors[static_cast<size_t>(dead)];
        detail += " (inside '" + t.name + "', planned live for instructions " +
                  std::to_string(t.first) + ".." + std::to_string(t.last) + ")";
      }
      if (!op.bytes.empty()) report(op.bytes, std::move(detail));
    }
    if (op.read) acc.reads = unite(acc.reads, op.bytes);
    if (op.write) acc.writes = unite(acc.writes, op.bytes);
    acc.operands.push_back(std::move(op));
  }
  return acc;
}

}  // namespace

void CheckedSpaces::localise(Finding& f) const {
  if (f.host || host_bytes == 0 || f.begin < host_base()) return;
  f.host = true;
  f.begin -= host_base();
  f.end -= host_base();
}

std::vector<isa::TensorEntry> checked_tensors(const std::vector<isa::TensorEntry>& tensors,
                                              const CheckedSpaces& spaces) {
  std::vector<isa::TensorEntry> out;
  out.reserve(tensors.size());
  for (const isa::TensorEntry& t : tensors) {
    out.push_back(t);
    out.back().addr = isa::saturating_add(t.addr, spaces.base(t.space));
  }
  return out;
}

std::vector<InstructionAccess> collect_accesses(const isa::Executable& exe,
                                                const std::vector<isa::TensorEntry>& tensors,
                                                const TensorAttribution& attribution,
                                                const CheckedSpaces& spaces) {
  std::vector<InstructionAccess> out;
  out.reserve(exe.instructions.size());
  for (size_t i = 0; i < exe.instructions.size(); ++i)
    out.push_back(collect_one(exe, tensors, attribution, spaces, static_cast<uint32_t>(i)));
  return out;
}

}  // namespace s2::sim::checker
