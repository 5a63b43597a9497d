#include "simulator/checker/hazard_scan.h"

#include <algorithm>
#include <optional>

namespace s2::sim::checker {
namespace {

bool hulls_overlap(const Interval& a, const Interval& b) {
  return a.begin < b.end && b.begin < a.end;
}

// The operand of `acc` (reading or writing as asked) whose bytes contain `addr`.
const OperandAccess* operand_at(const InstructionAccess& acc, uint64_t addr, bool write) {
  for (const OperandAccess& op : acc.operands) {
    if (write ? !op.write : !op.read) continue;
    for (const Interval& iv : op.bytes)
      if (iv.begin <= addr && addr < iv.end) return &op;
  }
  return nullptr;
}

std::string tensor_name(const isa::Executable& exe, const OperandAccess* op) {
  if (op == nullptr || op->tensor < 0) return {};
  return exe.tensors[static_cast<size_t>(op->tensor)].name;
}

std::string slot_name(const OperandAccess* op) {
  return op == nullptr ? std::string() : std::string(isa::slot_info(op->slot).name);
}

}  // namespace

std::vector<Finding> find_hazards(const isa::Executable& exe,
                                  const std::vector<InstructionAccess>& accesses,
                                  const DependencyClosure& closure) {
  const size_t n = accesses.size();
  std::vector<Interval> any_hull(n);
  for (size_t i = 0; i < n; ++i) {
    const Interval r = hull(accesses[i].reads);
    const Interval w = hull(accesses[i].writes);
    if (accesses[i].reads.empty())
      any_hull[i] = w;
    else if (accesses[i].writes.empty())
      any_hull[i] = r;
    else
      any_hull[i] = {std::min(r.begin, w.begin), std::max(r.end, w.end)};
  }

  std::vector<Finding> found;
  for (uint32_t i = 0; i < n; ++i) {
    const InstructionAccess& later = accesses[i];
    if (later.reads.empty() && later.writes.empty()) continue;
    for (uint32_t j = 0; j < i; ++j) {
      const InstructionAccess& earlier = accesses[j];
      if (earlier.writes.empty() && later.writes.empty()) continue;
      if (!hulls_overlap(any_hull[i], any_hull[j]) || closure.waits_for(i, j)) continue;
      struct Pairing {
        const ByteSet& mine;
        bool mine_write;
        const ByteSet& theirs;
        bool their_write;
        const char* name;
      };
      const Pairing pairings[] = {{later.reads, false, earlier.writes, true, "RAW"},
                                  {later.writes, true, earlier.reads, false, "WAR"},
                                  {later.writes, true, earlier.writes, true, "WAW"}};
      for (const Pairing& p : pairings) {
        const std::optional<Interval> common = first_common(p.mine, p.theirs);
        if (!common) continue;
        const OperandAccess* mine = operand_at(later, common->begin, p.mine_write);
        const OperandAccess* theirs = operand_at(earlier, common->begin, p.their_write);
        Finding f;
        f.kind = FindingKind::Hazard;
        f.instruction = instruction_ref(exe, i);
        f.slot = slot_name(mine);
        f.tensor = tensor_name(exe, mine);
        f.has_other = true;
        f.other = instruction_ref(exe, j);
        f.other_slot = slot_name(theirs);
        f.other_tensor = tensor_name(exe, theirs);
        f.begin = common->begin;
        f.end = common->end;
        f.bytes = common->bytes();
        f.detail = p.name;
        found.push_back(std::move(f));
        break;
      }
    }
  }
  return found;
}

}  // namespace s2::sim::checker
