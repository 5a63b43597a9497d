#pragma once
// The exact DRAM bytes a tensor descriptor covers, as a sorted list of disjoint half-open byte
// intervals. The checker works on these sets instead of per-byte loops: a dense tensor is one
// interval however large it is, and a strided view is one interval per contiguous run.
//
// Unlike simulator/timing/dram_access.h (which over-fetches the gaps of strided reads, as
// DRAM bursts do), these sets are exact: a byte is in the set iff some element of the
// descriptor occupies it, because a finding must never blame bytes an instruction does not
// touch.

#include <cstdint>
#include <optional>
#include <vector>

#include "isa/encoding/instruction.h"

namespace s2::sim::checker {

struct Interval {
  uint64_t begin = 0;
  uint64_t end = 0;  // exclusive

  uint64_t bytes() const { return end - begin; }
  bool operator==(const Interval& o) const { return begin == o.begin && end == o.end; }
};

// Sorted by begin, disjoint, no two touching (adjacent intervals are merged), none empty.
using ByteSet = std::vector<Interval>;

// A descriptor with more contiguous runs than this is represented by its hull
// [addr, addr + span_bytes()) instead (a superset). No executable the compiler emits comes
// near it; it only bounds the work a hostile descriptor can cause.
inline constexpr uint64_t kMaxRuns = uint64_t{1} << 22;

// The bytes of every element of `desc`. Dimensions of extent 1 and broadcast dimensions
// (stride 0) add no addresses and are skipped; the innermost dimensions that are densely
// packed merge into one run. Empty for a tensor with no elements.
ByteSet byte_set(const isa::TensorDesc& desc);

// Sorts and merges arbitrary intervals (empty ones dropped) into a ByteSet.
ByteSet normalize(std::vector<Interval> intervals);

ByteSet unite(const ByteSet& a, const ByteSet& b);
// The part of `set` inside [lo, hi).
ByteSet clip(const ByteSet& set, uint64_t lo, uint64_t hi);
// The part of `set` outside [lo, hi).
ByteSet outside(const ByteSet& set, uint64_t lo, uint64_t hi);
// The first (lowest) interval both sets cover, if any. Linear merge: O(|a| + |b|).
std::optional<Interval> first_common(const ByteSet& a, const ByteSet& b);
// [lowest begin, highest end) of a non-empty set; {0, 0} for an empty one.
Interval hull(const ByteSet& set);
uint64_t total_bytes(const ByteSet& set);

}  // namespace s2::sim::checker
