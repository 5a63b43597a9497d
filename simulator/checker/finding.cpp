#include "simulator/checker/finding.h"

#include "isa/common/hex.h"

namespace s2::sim::checker {
namespace {

std::string name(const InstructionRef& ref) {
  std::string s = "instruction " + std::to_string(ref.index) + " " + ref.mnemonic;
  if (!ref.ops.empty()) s += " (" + ref.ops + ")";
  return s;
}

std::string operand(const std::string& slot, const std::string& tensor) {
  std::string s = slot.empty() ? std::string("an operand") : slot;
  s += tensor.empty() ? std::string(" (no tensor)") : " of tensor '" + tensor + "'";
  return s;
}

std::string range(const Finding& f) {
  return (f.host ? "host:" : "") + hex(f.begin) + ".." + hex(f.end) + " (" +
         std::to_string(f.bytes) + " bytes)";
}

}  // namespace

InstructionRef instruction_ref(const isa::Executable& exe, uint32_t index) {
  InstructionRef ref;
  ref.index = index;
  if (index < exe.instructions.size())
    ref.mnemonic = std::string(exe.instructions[index].info().mnemonic);
  if (index < exe.debug.size())
    for (const std::string& op : exe.debug[index])
      ref.ops += (ref.ops.empty() ? "" : "+") + op;
  return ref;
}

std::string_view kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::StaleRead:
      return "stale-read";
    case FindingKind::NeverWritten:
      return "never-written";
    case FindingKind::OutOfBounds:
      return "out-of-bounds";
    case FindingKind::Hazard:
      return "hazard";
  }
  return "unknown";
}

std::string format_finding(const Finding& f) {
  std::string s = std::string(kind_name(f.kind)) + ": " + name(f.instruction);
  switch (f.kind) {
    case FindingKind::StaleRead:
      s += " reads " + operand(f.slot, f.tensor) + " " + range(f) + ", last written as " +
           (f.other_tensor.empty() ? std::string("no tensor") : "tensor '" + f.other_tensor + "'") +
           (f.has_other ? " by " + name(f.other) : std::string(" by the initial data"));
      break;
    case FindingKind::NeverWritten:
      s += " reads " + operand(f.slot, f.tensor) + " " + range(f) + ", which nothing wrote before";
      break;
    case FindingKind::OutOfBounds:
      s += " accesses " + operand(f.slot, f.tensor) + " " + range(f) + ": " + f.detail;
      break;
    case FindingKind::Hazard:
      s += " " + operand(f.slot, f.tensor) + " and " + name(f.other) + " " +
           operand(f.other_slot, f.other_tensor) + " overlap at " + range(f) + " (" + f.detail +
           ") with no dependency path between them";
      break;
  }
  return s;
}

std::string format_findings(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings)
    out += format_finding(f) + "\n";
  return out;
}

}  // namespace s2::sim::checker
