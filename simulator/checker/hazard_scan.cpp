#include "simulator/checker/hazard_scan.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>

#include "simulator/checker/shadow_memory.h"

namespace s2::sim::checker {
namespace {

// For every byte of the checker's address line: the latest instruction that wrote it, and
// the instructions that read it since. An interval map like ShadowMemory's; the readers of a
// piece are a list in a shared pool, newest first, so splitting a piece copies one index.
class AccessHistory {
 public:
  // Calls visit(j) for the latest writer j of each written piece of `range`.
  template <class Visit>
  void writers(const Interval& range, Visit&& visit) const {
    for (auto it = first_overlapping(range.begin); it != map_.end() && it->first < range.end; ++it)
      if (it->second.writer != kNone) visit(static_cast<uint32_t>(it->second.writer));
  }

  // Calls visit(j) for every reader j since the latest write of each piece of `range`.
  template <class Visit>
  void readers(const Interval& range, Visit&& visit) const {
    for (auto it = first_overlapping(range.begin); it != map_.end() && it->first < range.end; ++it)
      for (int64_t k = it->second.readers; k != kNone; k = nodes_[static_cast<size_t>(k)].next)
        visit(nodes_[static_cast<size_t>(k)].instruction);
  }

  void read(const Interval& range, uint32_t instruction) {
    split(range.begin);
    split(range.end);
    // Bytes never accessed get a piece of their own, so a later write sees this read.
    uint64_t cursor = range.begin;
    auto it = map_.lower_bound(range.begin);
    while (cursor < range.end) {
      if (it == map_.end() || it->first > cursor) {
        const uint64_t gap_end = it == map_.end() ? range.end : std::min(it->first, range.end);
        it = map_.emplace_hint(it, cursor, Piece{gap_end, kNone, kNone});
      }
      Piece& piece = it->second;
      if (piece.readers == kNone ||
          nodes_[static_cast<size_t>(piece.readers)].instruction != instruction) {
        nodes_.push_back(Node{instruction, piece.readers});
        piece.readers = static_cast<int64_t>(nodes_.size() - 1);
      }
      cursor = piece.end;
      ++it;
    }
  }

  void write(const Interval& range, uint32_t instruction) {
    split(range.begin);
    split(range.end);
    auto first = map_.lower_bound(range.begin);
    auto last = map_.lower_bound(range.end);
    map_.erase(first, last);
    map_.emplace_hint(last, range.begin, Piece{range.end, instruction, kNone});
  }

 private:
  struct Piece {
    uint64_t end;
    int64_t writer;   // kNone: never written by an instruction
    int64_t readers;  // newest reader's node in nodes_, kNone when none since the write
  };
  struct Node {
    uint32_t instruction;
    int64_t next;
  };

  std::map<uint64_t, Piece>::const_iterator first_overlapping(uint64_t at) const {
    auto it = map_.upper_bound(at);
    if (it != map_.begin()) {
      auto before = std::prev(it);
      if (before->second.end > at) return before;
    }
    return it;
  }

  // Splits the piece strictly containing `at`, if any, so that a piece starts at `at`.
  void split(uint64_t at) {
    auto it = map_.upper_bound(at);
    if (it == map_.begin()) return;
    --it;
    if (it->first == at || it->second.end <= at) return;
    Piece right = it->second;
    it->second.end = at;
    map_.emplace_hint(std::next(it), at, right);
  }

  std::map<uint64_t, Piece> map_;  // begin -> piece; pieces are disjoint
  std::vector<Node> nodes_;
};

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

// The finding for the unordered pair (later i, earlier j): the first of RAW, WAR and WAW
// that they have, at the lowest bytes where they have it.
std::optional<Finding> hazard(const isa::Executable& exe, const InstructionAccess& later,
                              uint32_t i, const InstructionAccess& earlier, uint32_t j) {
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
    return f;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Finding> find_hazards(const isa::Executable& exe,
                                  const std::vector<InstructionAccess>& accesses,
                                  const DependencyClosure& closure) {
  const auto n = static_cast<uint32_t>(accesses.size());
  AccessHistory history;
  std::vector<uint32_t> noted(n, 0);  // i + 1 once j is a candidate of i
  std::vector<uint32_t> candidates;
  std::vector<Finding> found;
  for (uint32_t i = 0; i < n; ++i) {
    const InstructionAccess& acc = accesses[i];
    candidates.clear();
    auto note = [&](uint32_t j) {
      if (j == i || noted[j] == i + 1) return;
      noted[j] = i + 1;
      candidates.push_back(j);
    };
    for (const Interval& iv : acc.reads)
      history.writers(iv, note);
    for (const Interval& iv : acc.writes) {
      history.writers(iv, note);
      history.readers(iv, note);
    }
    std::sort(candidates.begin(), candidates.end());
    for (uint32_t j : candidates) {
      if (closure.waits_for(i, j)) continue;
      if (std::optional<Finding> f = hazard(exe, acc, i, accesses[j], j))
        found.push_back(std::move(*f));
    }
    for (const Interval& iv : acc.reads)
      history.read(iv, i);
    for (const Interval& iv : acc.writes)
      history.write(iv, i);
  }
  return found;
}

}  // namespace s2::sim::checker
