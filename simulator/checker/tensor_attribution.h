#pragma once
// Which tensor-table entry an operand belongs to. The memory plan lets entries share
// addresses over time, so an address alone is ambiguous: the entry must also be live (its
// planned lifetime [first, last] contains the instruction index).
//
// Contract: candidates() lists every entry that is live at the instruction and whose reserved
// bytes [addr, addr + size) contain the operand's first byte. A correct plan has at most one
// entry that is readable there (see readable()) and one that is being written; several
// readable candidates mean the plan overlapped two live tensors, which the checker reports
// against each of them. primary() picks the one entry the operand is attributed to:
//   1. a written operand prefers the entry whose lifetime starts at this instruction (the
//      tensor being produced), a read one the entries that already hold data (readable());
//   2. then an entry that holds the whole operand (its last byte too), so an overlapped plan
//      blames the entry the operand fits rather than reporting it out of bounds;
//   3. then an entry starting exactly at the operand's address;
//   4. then the smallest reserved size (the most specific entry), then the lowest index.

#include <cstdint>
#include <vector>

#include "isa/container/executable.h"

namespace s2::sim::checker {

class TensorAttribution {
 public:
  explicit TensorAttribution(const std::vector<isa::TensorEntry>& tensors);

  // Indices into the tensor table, in table order.
  std::vector<uint32_t> candidates(uint64_t addr, uint32_t instruction) const;
  // An entry read at `instruction` must already hold something: it was produced earlier, or it
  // starts with initial data.
  bool readable(uint32_t tensor, uint32_t instruction) const;
  // -1 when there are no candidates.
  // [addr, end) is the operand's span.
  int64_t primary(const std::vector<uint32_t>& candidates, uint64_t addr, uint64_t end,
                  uint32_t instruction, bool written) const;
  // Any entry (live or not) containing `addr`, or -1: names the tensor an access outside every
  // lifetime hit.
  int64_t any_containing(uint64_t addr) const;

 private:
  const std::vector<isa::TensorEntry>& tensors_;
  std::vector<uint32_t> by_addr_;  // entry indices sorted by address
  uint64_t max_size_ = 0;          // bounds the backward scan from an address
};

}  // namespace s2::sim::checker
