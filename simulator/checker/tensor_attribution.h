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
// Both come from one pass over the entries that start at most the largest entry's size below
// the address, with no list of all candidates. That pass is still as long as the entries
// there: N reads of bytes N live entries share cost N x N steps (1.2 s for N = 10000).

#include <cstdint>
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
  // Calls visit(index, entry) for each entry (live or not) whose reserved bytes contain
  // `addr`: the entries starting in (addr - max_size, addr], scanned back from `addr`.
  template <typename Visit>
  void for_each_containing(uint64_t addr, Visit visit) const;

  const std::vector<isa::TensorEntry>& tensors_;
  std::vector<uint32_t> by_addr_;  // entry indices sorted by address
  uint64_t max_size_ = 0;          // bounds the backward scan from an address
};

}  // namespace s2::sim::checker
