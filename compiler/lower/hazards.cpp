#include "compiler/lower/hazards.h"

#include <algorithm>

#include "compiler/lower/dependencies.h"
#include "compiler/lower/reachability.h"
#include "isa/common/hex.h"

namespace s2::lower {
namespace {

bool overlap(const ByteRange& a, const ByteRange& b) {
  return a.begin < b.end && b.begin < a.end;
}

const ByteRange* first_overlap(const std::vector<ByteRange>& xs, const std::vector<ByteRange>& ys) {
  for (const ByteRange& x : xs)
    for (const ByteRange& y : ys)
      if (overlap(x, y)) return &x;
  return nullptr;
}

std::string label(const std::vector<isa::Instruction>& program, size_t i) {
  return "instruction " + std::to_string(i) + " (" + std::string(program[i].info().mnemonic) + ")";
}

}  // namespace

std::vector<std::string> uncovered_hazards(const std::vector<isa::Instruction>& program,
                                           size_t limit) {
  Reachability reach;
  std::vector<Accesses> acc;
  std::vector<std::string> found;
  for (size_t i = 0; i < program.size(); ++i) {
    const isa::Instruction& inst = program[i];
    // Dependencies on later instructions are the validator's business; ignore them here.
    std::vector<uint32_t> deps;
    for (uint32_t d : inst.deps)
      if (d < i) deps.push_back(d);
    reach.add(deps, inst.opcode() == isa::Opcode::Barrier);
    acc.push_back(accesses_of(inst));
    const auto later = static_cast<uint32_t>(i);
    for (uint32_t j = 0; j < later && found.size() < limit; ++j) {
      if (reach.waits_for(later, j)) continue;
      struct Kind {
        const std::vector<ByteRange>& mine;
        const std::vector<ByteRange>& theirs;
        const char* verb;
        const char* their_verb;
        const char* name;
      };
      const Kind kinds[] = {{acc[i].reads, acc[j].writes, "reads", "writes", "RAW"},
                            {acc[i].writes, acc[j].reads, "writes", "reads", "WAR"},
                            {acc[i].writes, acc[j].writes, "writes", "writes", "WAW"}};
      for (const Kind& k : kinds) {
        const ByteRange* r = first_overlap(k.mine, k.theirs);
        if (r == nullptr) continue;
        found.push_back(label(program, i) + " " + k.verb + " " + hex(r->begin) + ".." +
                        hex(r->end) + ", which " + label(program, j) + " " + k.their_verb +
                        ", without waiting for it (" + k.name + ")");
        break;
      }
    }
  }
  return found;
}

}  // namespace s2::lower
