#include "simulator/report/physics_check.h"

#include "isa/common/errors.h"

namespace s2::sim::report {

std::vector<uint32_t> roofline_violations(const RunResult& result) {
  std::vector<uint32_t> out;
  for (const InstructionRecord& r : result.instructions)
    if (r.cycles() < r.roofline_cycles) out.push_back(r.index);
  return out;
}

void check_roofline(const RunResult& result) {
  const std::vector<uint32_t> bad = roofline_violations(result);
  if (bad.empty()) return;
  std::string text = "physics check: " + std::to_string(bad.size()) +
                     " instruction(s) faster than their roofline bound:";
  for (size_t k = 0; k < bad.size() && k < 8; ++k) {
    const InstructionRecord& r = result.instructions[bad[k]];
    text += " instruction " + std::to_string(r.index) + " (" + r.op + ") " +
            std::to_string(r.cycles()) + " < " + std::to_string(r.roofline_cycles) + ";";
  }
  throw InternalError(text);
}

}  // namespace s2::sim::report
