#pragma once
// The DRAM traffic of one tile, in the form the DRAM model times: contiguous byte ranges.
//
// A tile's operand blocks are boxes (a range of indices per dimension) over 4-D DRAM tensor
// descriptors. box_accesses() turns a box into byte ranges, taking the dimensions in memory
// order (largest stride outermost, whatever their order in the descriptor): the innermost
// dimensions that the box covers densely merge into one range, and each combination of the
// outer indices gives one range. A strided innermost dimension (stride > 1) is read as its span
// from the first to the last element, gaps included: DRAM moves whole bursts anyway, so the gaps
// cost about what they would cost if read. A read box that would produce more than kMaxRunsPerBox
// ranges merges its outermost split dimensions into spans while that at most doubles its bytes (a
// bounded over-fetch); a write box is always exact, since a store must not touch bytes its
// tile does not own. Read bytes thus over-approximate, never under-approximate, what the
// tile needs.

#include <array>
#include <cstdint>
#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/dram/dram_model.h"

namespace s2::sim::timing {

struct DramAccess {
  uint64_t address = 0;
  uint64_t bytes = 0;
  bool write = false;
  // The range is in host memory (a copy's host operand, isa::MemSpace::Host): the DMA engine
  // moves it over the host link (simulator/top/host_link.h), not through the DRAM model.
  bool host = false;

  bool operator==(const DramAccess& o) const {
    return address == o.address && bytes == o.bytes && write == o.write && host == o.host;
  }
};

// The access as the DRAM model takes it (a DRAM access: host ones never reach it).
inline dram::Access to_dram(const DramAccess& a) {
  return {a.address, a.bytes, a.write ? dram::AccessKind::Write : dram::AccessKind::Read};
}

// Half-open index range [lo, hi) per dimension, outermost first; dimensions past the tensor's
// rank are ignored.
struct Box {
  std::array<uint64_t, isa::kMaxRank> lo{};
  std::array<uint64_t, isa::kMaxRank> hi{};

  // The whole tensor.
  static Box whole(const isa::TensorDesc& desc);
  bool empty(unsigned rank) const;
  uint64_t elements(unsigned rank) const;
};

inline constexpr uint64_t kMaxRunsPerBox = 256;

// Appends the byte ranges of `box` of `desc` to `out`. An empty box appends nothing. The box
// must lie inside the tensor (an internal error otherwise).
void box_accesses(const isa::TensorDesc& desc, const Box& box, bool write,
                  std::vector<DramAccess>& out);

// The row-major flat element range [first, last) of a tensor of `desc`'s shape as at most
// 2 * rank - 1 boxes, in address order of the flat index.
std::vector<Box> flat_range_boxes(const isa::TensorDesc& desc, uint64_t first, uint64_t last);

}  // namespace s2::sim::timing
