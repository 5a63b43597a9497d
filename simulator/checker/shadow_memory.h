#pragma once
// The shadow of DRAM: for every byte, which tensor-table entry and which instruction last
// wrote it. Stored as an interval map (a tensor written in one instruction is one entry
// however many bytes it has), so a write or a query costs O(log n + pieces touched), never
// O(bytes).

#include <cstdint>
#include <functional>
#include <map>

#include "simulator/checker/byte_runs.h"

namespace s2::sim::checker {

inline constexpr int64_t kNone = -1;

// Who last wrote a byte. tensor: index into the tensor table, or kNone when the writing
// operand matched no entry. instruction: the writer's index, or kNone for the executable's
// initial data.
struct Tag {
  int64_t tensor = kNone;
  int64_t instruction = kNone;

  bool operator==(const Tag& o) const { return tensor == o.tensor && instruction == o.instruction; }
  bool operator!=(const Tag& o) const { return !(*this == o); }
};

class ShadowMemory {
 public:
  // Tags [range.begin, range.end) with `tag`, replacing whatever was there.
  void write(const Interval& range, const Tag& tag);

  // Calls visit(piece, tag) for each maximal piece of `range` with one tag, in address order;
  // tag is nullptr for bytes never written.
  void read(const Interval& range,
            const std::function<void(const Interval&, const Tag*)>& visit) const;

  size_t pieces() const { return map_.size(); }

 private:
  struct Piece {
    uint64_t end;
    Tag tag;
  };
  // Splits the piece containing `at` (if any) so that a piece starts at `at`.
  void split(uint64_t at);

  std::map<uint64_t, Piece> map_;  // begin -> piece; pieces are disjoint
};

}  // namespace s2::sim::checker
