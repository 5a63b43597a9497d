#pragma once
// Which tensor-table entry an operand belongs to. The memory plan lets entries share
// addresses over time, so an address alone is ambiguous: the entry must also be live (its
// planned lifetime [first, last] contains the instruction index).
//
// Contract: the candidates of an operand are every entry that is live at the instruction and
// whose reserved bytes [addr, addr + size) contain the operand's first byte. A correct plan
// has at most one that is readable (see readable()) and one that is being written; several
// readable candidates mean the plan overlapped live tensors, which the checker reports against
// each of them, up to kMaxReadable (the first in table order): a read of bytes that thousands
// of live entries share would otherwise report thousands of stale reads, and a program of N
// such reads N x N (2000 aliased tensors made 4 million findings, 2.8 GB and 8.5 s). The
// primary candidate is the one entry the operand is attributed to:
//   1. a written operand prefers the entry whose lifetime starts at this instruction (the
//      tensor being produced), a read one the entries that already hold data (readable());
//   2. then an entry that holds the whole operand (its last byte too), so an overlapped plan
//      blames the entry the operand fits rather than reporting it out of bounds;
//   3. then an entry starting exactly at the operand's address;
//   4. then the smallest reserved size (the most specific entry), then the lowest index.
// Entries with the same address and size form a group; each group indexes its entries'
// lifetimes (a segment tree over instruction indices whose nodes list entries in table
// order), so the live entries at an instruction come out lowest index first without looking
// at the dead ones. An operand costs about log n steps per group containing its first byte
// (plus, for a read, the entries produced at that very instruction): thousands of entries
// planned onto the same bytes are one group (N reads of bytes N live entries share took
// N x N steps before, 20 s for N = 40000). Only entries of many different addresses or sizes
// all containing one byte still cost a step each.

#include <cstdint>
#include <utility>
#include <vector>

#include "isa/container/executable.h"

namespace s2::sim::checker {

class TensorAttribution {
 public:
  explicit TensorAttribution(const std::vector<isa::TensorEntry>& tensors);

  static constexpr size_t kMaxReadable = 8;

  struct Attribution {
    int64_t primary = -1;  // the entry the operand is attributed to; -1 without candidates
    // Readable candidates, the first kMaxReadable in table order (filled only when asked).
    std::vector<uint32_t> readable;
  };
  // The operand spanning [addr, end) at `instruction`; `written` when it is only written.
  Attribution attribute(uint64_t addr, uint64_t end, uint32_t instruction, bool written,
                        bool want_readable) const;
  // An entry read at `instruction` must already hold something: it was produced earlier, or it
  // starts with initial data.
  bool readable(uint32_t tensor, uint32_t instruction) const;
  // The first entry in table order (live or not) containing `addr`, or -1: names the tensor an
  // access outside every lifetime hit.
  int64_t any_containing(uint64_t addr) const;

 private:
  // Entries sharing one address and size.
  struct Group {
    uint64_t addr = 0;
    uint64_t size = 0;
    std::vector<uint32_t> entries;  // table order
    // (first, index) of each entry live for at least one instruction, sorted: the entries
    // whose lifetime starts at an instruction.
    std::vector<std::pair<uint32_t, uint32_t>> by_first;
    // Segment tree over the instruction slots cut at every first and last + 1: slot s covers
    // [cuts[s], cuts[s + 1]). Node k's entries (table order) are live over all of its slots.
    std::vector<uint32_t> cuts;
    std::vector<std::vector<uint32_t>> nodes;
  };
  struct GroupAnswer {
    int64_t lowest_live = -1;
    int64_t lowest_fitting = -1;  // lowest live entry whose role fits
  };

  // Calls visit(group) for each group whose bytes contain `addr`: the groups starting in
  // (addr - max_size, addr], scanned back from `addr`.
  template <typename Visit>
  void for_each_containing(uint64_t addr, Visit visit) const;
  void index_lifetimes(Group& g) const;
  // The group's live entries at `instruction`; fills `readable` (lowest first, at most
  // kMaxReadable) when asked.
  GroupAnswer live(const Group& g, uint32_t instruction, bool written,
                   std::vector<uint32_t>* readable) const;

  const std::vector<isa::TensorEntry>& tensors_;
  std::vector<Group> groups_;  // sorted by address
  uint64_t max_size_ = 0;      // bounds the backward scan from an address
};

}  // namespace s2::sim::checker
