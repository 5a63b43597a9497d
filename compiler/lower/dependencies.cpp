#include "compiler/lower/dependencies.h"

#include <algorithm>
#include <map>

#include "compiler/lower/reachability.h"
#include "isa/common/errors.h"

namespace s2::lower {
namespace {

// The access history of DRAM, as disjoint byte segments: for each, the last instruction that
// wrote it and the instructions that read it since. Segments split where ranges start and end
// and merge again when one instruction overwrites them.
class History {
 public:
  // The earlier instructions that instruction `i` with these accesses conflicts with.
  std::vector<uint32_t> conflicts(const Accesses& acc) {
    for (const ByteRange& r : acc.reads)
      cover(r);
    for (const ByteRange& r : acc.writes)
      cover(r);
    std::vector<uint32_t> found;
    for (const ByteRange& r : acc.reads)
      for_each(r, [&](Segment& s) {
        if (s.writer >= 0) found.push_back(static_cast<uint32_t>(s.writer));
      });
    for (const ByteRange& r : acc.writes)
      for_each(r, [&](Segment& s) {
        if (s.writer >= 0) found.push_back(static_cast<uint32_t>(s.writer));
        found.insert(found.end(), s.readers.begin(), s.readers.end());
      });
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
  }

  // Records the accesses of instruction `i`: reads first, so that an in-place operand
  // (read and written) ends up as written by `i` with no readers.
  void record(uint32_t i, const Accesses& acc) {
    for (const ByteRange& r : acc.reads)
      for_each(r, [&](Segment& s) {
        if (s.readers.empty() || s.readers.back() != i) s.readers.push_back(i);
      });
    for (const ByteRange& r : acc.writes) {
      segments_.erase(segments_.lower_bound(r.begin), segments_.lower_bound(r.end));
      segments_.emplace(r.begin, Segment{r.end, static_cast<int64_t>(i), {}});
    }
  }

 private:
  struct Segment {
    uint64_t end;
    int64_t writer = -1;
    std::vector<uint32_t> readers;
  };

  // Splits the segment containing `at` so that a segment starts there.
  void split(uint64_t at) {
    auto it = segments_.upper_bound(at);
    if (it == segments_.begin()) return;
    --it;
    if (it->first < at && at < it->second.end) {
      Segment right = it->second;
      it->second.end = at;
      segments_.emplace(at, std::move(right));
    }
  }

  // Makes [begin, end) exactly tiled by segments, adding empty ones over the gaps.
  void cover(const ByteRange& r) {
    split(r.begin);
    split(r.end);
    uint64_t pos = r.begin;
    std::vector<ByteRange> gaps;
    for (auto it = segments_.lower_bound(r.begin); it != segments_.end() && it->first < r.end;
         ++it) {
      if (it->first > pos) gaps.push_back({pos, it->first});
      pos = it->second.end;
    }
    if (pos < r.end) gaps.push_back({pos, r.end});
    for (const ByteRange& g : gaps)
      segments_.emplace(g.begin, Segment{g.end, -1, {}});
  }

  template <typename Fn>
  void for_each(const ByteRange& r, Fn fn) {
    for (auto it = segments_.lower_bound(r.begin); it != segments_.end() && it->first < r.end; ++it)
      fn(it->second);
  }

  std::map<uint64_t, Segment> segments_;
};

// Drops the members of `deps` (sorted ascending) that another member already waits for.
std::vector<uint32_t> reduce(const std::vector<uint32_t>& deps, const Reachability& reach) {
  std::vector<uint32_t> kept;
  for (size_t k = deps.size(); k-- > 0;) {
    const uint32_t d = deps[k];
    const bool implied = std::any_of(kept.begin(), kept.end(),
                                     [&](uint32_t later) { return reach.waits_for(later, d); });
    if (!implied) kept.push_back(d);
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

class Builder {
 public:
  // `expected`: about how many instructions will be appended (reserved up front).
  explicit Builder(size_t expected) {
    out_.reserve(expected);
    has_successor_.reserve(expected);
  }

  // Appends `inst` waiting for `deps` (already reduced), through a barrier when too many.
  uint32_t append(isa::Instruction inst, std::vector<uint32_t> deps) {
    if (deps.size() > isa::kMaxDeps) {
      emit(isa::Instruction(isa::Opcode::Barrier), {}, true);
      deps = {static_cast<uint32_t>(out_.size() - 1)};
    }
    return emit(std::move(inst), std::move(deps), false);
  }

  // The instructions nothing waits for.
  std::vector<uint32_t> sinks() const {
    std::vector<uint32_t> found;
    for (uint32_t i = 0; i < out_.size(); ++i)
      if (!has_successor_[i]) found.push_back(i);
    return found;
  }

  const Reachability& reach() const { return reach_; }
  std::vector<isa::Instruction>& instructions() { return out_; }

 private:
  uint32_t emit(isa::Instruction inst, std::vector<uint32_t> deps, bool barrier) {
    const auto index = static_cast<uint32_t>(out_.size());
    if (barrier) std::fill(has_successor_.begin(), has_successor_.end(), true);
    for (uint32_t d : deps)
      has_successor_[d] = true;
    reach_.add(deps, barrier);
    inst.deps = std::move(deps);
    out_.push_back(std::move(inst));
    has_successor_.push_back(false);
    return index;
  }

  std::vector<isa::Instruction> out_;
  std::vector<bool> has_successor_;
  Reachability reach_;
};

}  // namespace

Accesses accesses_of(const isa::Instruction& inst) {
  Accesses acc;
  for (const isa::OperandSig& sig : inst.info().operands) {
    const auto& d = inst.operand(sig.slot);
    if (!d) continue;
    const uint64_t span = d->span_bytes();
    if (span == 0) continue;
    // Host memory is a second address space: its ranges sit on one line with DRAM's, from
    // kHostLine on, so they conflict only with host ranges.
    const uint64_t at =
        isa::saturating_add(d->addr, d->space == isa::MemSpace::Host ? kHostLine : 0);
    const ByteRange r{at, isa::saturating_add(at, span)};
    if (sig.access != isa::Access::Out) acc.reads.push_back(r);
    if (sig.access != isa::Access::In) acc.writes.push_back(r);
  }
  return acc;
}

Program add_dependencies(std::vector<isa::Instruction> body) {
  Program program;
  Builder builder(body.size() + 1);  // the body and `end`; barriers, where needed, on top
  History history;
  program.index_of.reserve(body.size());
  for (isa::Instruction& inst : body) {
    S2_CHECK(inst.opcode() != isa::Opcode::End, "add_dependencies: 'end' inside the program body");
    const Accesses acc = accesses_of(inst);
    const std::vector<uint32_t> deps = reduce(history.conflicts(acc), builder.reach());
    const uint32_t index = builder.append(std::move(inst), deps);
    history.record(index, acc);
    program.index_of.push_back(index);
  }
  builder.append(isa::Instruction(isa::Opcode::End), builder.sinks());
  program.instructions = std::move(builder.instructions());
  return program;
}

}  // namespace s2::lower
