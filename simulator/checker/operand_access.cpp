#include "simulator/checker/operand_access.h"

#include "isa/common/hex.h"

namespace s2::sim::checker {
namespace {

Finding out_of_bounds(const isa::Executable& exe, uint32_t index, const OperandAccess& op,
                      const ByteSet& bad, std::string detail) {
  Finding f;
  f.kind = FindingKind::OutOfBounds;
  f.instruction = instruction_ref(exe, index);
  f.slot = std::string(isa::slot_info(op.slot).name);
  if (op.tensor >= 0) f.tensor = exe.tensors[static_cast<size_t>(op.tensor)].name;
  const Interval h = hull(bad);
  f.begin = h.begin;
  f.end = h.end;
  f.bytes = total_bytes(bad);
  f.detail = std::move(detail);
  return f;
}

InstructionAccess collect_one(const isa::Executable& exe, const TensorAttribution& attribution,
                              uint64_t dram_bytes, uint32_t index) {
  const isa::Instruction& inst = exe.instructions[index];
  InstructionAccess acc;
  for (const isa::OperandSig& sig : inst.info().operands) {
    const std::optional<isa::TensorDesc>& desc = inst.operand(sig.slot);
    if (!desc) continue;
    OperandAccess op;
    op.slot = sig.slot;
    op.read = sig.access != isa::Access::Out;
    op.write = sig.access != isa::Access::In;
    const ByteSet all = byte_set(*desc);
    if (all.empty()) continue;
    op.bytes = clip(all, 0, dram_bytes);
    const std::vector<uint32_t> candidates = attribution.candidates(desc->addr, index);
    op.tensor =
        attribution.primary(candidates, desc->addr, hull(all).end, index, op.write && !op.read);
    if (op.read)
      for (uint32_t c : candidates)
        if (attribution.readable(c, index)) op.readable.push_back(c);

    const ByteSet beyond = outside(all, 0, dram_bytes);
    if (!beyond.empty())
      acc.out_of_bounds.push_back(
          out_of_bounds(exe, index, op, beyond, "outside DRAM (size " + hex(dram_bytes) + ")"));
    if (op.tensor >= 0) {
      const isa::TensorEntry& t = exe.tensors[static_cast<size_t>(op.tensor)];
      const uint64_t end = isa::saturating_add(t.addr, t.size);
      op.in_tensor = clip(op.bytes, t.addr, end);
      const ByteSet past = outside(op.bytes, t.addr, end);
      if (!past.empty())
        acc.out_of_bounds.push_back(
            out_of_bounds(exe, index, op, past,
                          "past its tensor's reserved bytes " + hex(t.addr) + ".." + hex(end)));
    } else {
      op.in_tensor = op.bytes;
      std::string detail = "outside any tensor live at this instruction";
      const int64_t dead = attribution.any_containing(desc->addr);
      if (dead >= 0) {
        const isa::TensorEntry& t = exe.tensors[static_cast<size_t>(dead)];
        detail += " (inside '" + t.name + "', planned live for instructions " +
                  std::to_string(t.first) + ".." + std::to_string(t.last) + ")";
      }
      if (!op.bytes.empty())
        acc.out_of_bounds.push_back(out_of_bounds(exe, index, op, op.bytes, std::move(detail)));
    }
    if (op.read) acc.reads = unite(acc.reads, op.bytes);
    if (op.write) acc.writes = unite(acc.writes, op.bytes);
    acc.operands.push_back(std::move(op));
  }
  return acc;
}

}  // namespace

std::vector<InstructionAccess> collect_accesses(const isa::Executable& exe,
                                                const TensorAttribution& attribution,
                                                uint64_t dram_bytes) {
  std::vector<InstructionAccess> out;
  out.reserve(exe.instructions.size());
  for (size_t i = 0; i < exe.instructions.size(); ++i)
    out.push_back(collect_one(exe, attribution, dram_bytes, static_cast<uint32_t>(i)));
  return out;
}

}  // namespace s2::sim::checker
