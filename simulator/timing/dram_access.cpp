#include "simulator/timing/dram_access.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "isa/common/errors.h"

namespace s2::sim::timing {

Box Box::whole(const isa::TensorDesc& desc) {
  Box b;
  for (unsigned d = 0; d < desc.rank; ++d)
    b.hi[d] = desc.shape[d];
  return b;
}

bool Box::empty(unsigned rank) const {
  for (unsigned d = 0; d < rank; ++d)
    if (hi[d] <= lo[d]) return true;
  return false;
}

uint64_t Box::elements(unsigned rank) const {
  if (empty(rank)) return 0;
  uint64_t n = 1;
  for (unsigned d = 0; d < rank; ++d)
    n *= hi[d] - lo[d];
  return n;
}

void box_accesses(const isa::TensorDesc& desc, const Box& box, bool write,
                  std::vector<DramAccess>& out) {
  const unsigned rank = desc.rank;
  if (rank == 0 || box.empty(rank)) return;
  for (unsigned d = 0; d < rank; ++d)  // hot path: build the message only on failure
    if (box.hi[d] > desc.shape[d])
      throw InternalError("timing: box dimension " + std::to_string(d) + " ends at " +
                          std::to_string(box.hi[d]) + " past the extent " +
                          std::to_string(desc.shape[d]));
  // Dimensions in memory order, outermost (largest stride) first; a dimension of one index or
  // of stride 0 (a broadcast) goes outermost, where it only repeats or fixes the runs. A
  // permuted descriptor (a transposed view, a head split, an output written in its readers'
  // order) read in its own dimension order would be cut into runs along a strided innermost
  // dimension, each spanning the gaps, and those spans overlap: the box of 256 channels of a
  // [N, K, P, Q] tensor stored channels-last read 256 spans of its whole (P, Q) block.
  const auto outer_key = [&](unsigned d) {
    return desc.shape[d] == 1 || desc.strides[d] == 0 ? UINT64_MAX : uint64_t{desc.strides[d]};
  };
  bool ordered = true;
  for (unsigned d = 1; d < rank; ++d)
    ordered = ordered && outer_key(d - 1) >= outer_key(d);
  if (!ordered) {
    std::array<unsigned, isa::kMaxRank> order{};
    for (unsigned d = 0; d < rank; ++d)
      order[d] = d;
    std::stable_sort(order.begin(), order.begin() + rank,
                     [&](unsigned a, unsigned b) { return outer_key(a) > outer_key(b); });
    isa::TensorDesc sorted = desc;
    Box sorted_box;
    for (unsigned d = 0; d < rank; ++d) {
      sorted.shape[d] = desc.shape[order[d]];
      sorted.strides[d] = desc.strides[order[d]];
      sorted_box.lo[d] = box.lo[order[d]];
      sorted_box.hi[d] = box.hi[order[d]];
    }
    box_accesses(sorted, sorted_box, write, out);
    return;
  }
  const uint64_t elem = isa::dtype_bytes(desc.dtype);
  // Dimensions [split, rank) form one range: every dimension inside it but the outermost is
  // covered whole, and each is laid out right after the next inner one (dense).
  unsigned split = rank - 1;
  while (split > 0) {
    const unsigned d = split;  // candidate: merge dimension d - 1 into the range
    const bool whole = box.lo[d] == 0 && box.hi[d] == desc.shape[d];
    const bool dense = uint64_t{desc.strides[d - 1]} == uint64_t{desc.shape[d]} * desc.strides[d];
    if (!whole || !dense) break;
    --split;
  }
  auto runs_above = [&](unsigned s) {
    uint64_t n = 1;
    for (unsigned d = 0; d < s; ++d)
      n *= box.hi[d] - box.lo[d];
    return n;
  };
  auto span_elems = [&](unsigned s) {  // span of the range over dimensions [s, rank)
    uint64_t n = 1;
    for (unsigned d = s; d < rank; ++d)
      n += (box.hi[d] - 1 - box.lo[d]) * desc.strides[d];
    return n;
  };
  // Bound the list of a read: merge outer dimensions as spans while the ranges are many and
  // the over-fetch stays within twice the exact bytes. Writes stay exact: a store must never
  // touch bytes the tile does not own.
  const uint64_t exact = runs_above(split) * span_elems(split);
  while (!write && split > 0 && runs_above(split) > kMaxRunsPerBox &&
         runs_above(split - 1) * span_elems(split - 1) <= 2 * exact)
    --split;

  const uint64_t run_elems = span_elems(split);
  const uint64_t run_bytes = run_elems * elem;

  std::array<uint64_t, isa::kMaxRank> idx{};
  for (unsigned d = 0; d < split; ++d)
    idx[d] = box.lo[d];
  const uint64_t count = runs_above(split);
  if (out.capacity() < out.size() + count)  // room for every run, growing geometrically
    out.reserve(std::max(out.size() + count, 2 * out.capacity()));
  // The element offset of the current run, kept up to date by the odometer below rather than
  // recomputed from every index (this loop runs once per run of every tile).
  uint64_t offset = 0;
  for (unsigned d = 0; d < rank; ++d)
    offset += box.lo[d] * desc.strides[d];
  const bool host = desc.space == isa::MemSpace::Host;
  for (uint64_t r = 0; r < count; ++r) {
    const uint64_t address = desc.addr + offset * elem;
    // Coalesce with the previous range when it ends exactly here (dense outer dimensions).
    if (!out.empty() && out.back().write == write && out.back().host == host &&
        out.back().address + out.back().bytes == address)
      out.back().bytes += run_bytes;
    else
      out.push_back({address, run_bytes, write, host});
    for (unsigned d = split; d-- > 0;) {  // odometer over the outer dimensions
      if (++idx[d] < box.hi[d]) {
        offset += desc.strides[d];
        break;
      }
      offset -= (idx[d] - 1 - box.lo[d]) * desc.strides[d];
      idx[d] = box.lo[d];
    }
  }
}

std::vector<Box> flat_range_boxes(const isa::TensorDesc& desc, uint64_t first, uint64_t last) {
  std::vector<Box> boxes;
  const unsigned rank = desc.rank;
  if (rank == 0 || first >= last) return boxes;
  if (last > desc.elements()) throw InternalError("timing: flat range past the tensor's elements");
  // inner[d]: elements in one index step of dimension d.
  std::array<uint64_t, isa::kMaxRank> inner{};
  inner[rank - 1] = 1;
  for (unsigned d = rank - 1; d-- > 0;)
    inner[d] = inner[d + 1] * desc.shape[d + 1];
  auto index_of = [&](uint64_t flat, unsigned d) { return (flat / inner[d]) % desc.shape[d]; };
  // A box that spans [from, to) where `to - from` is a whole number of steps of dimension d
  // and `from` is aligned to it: fixed outer indices, dimension d ranged, inner ones whole.
  auto aligned_box = [&](uint64_t from, uint64_t to, unsigned d) {
    Box b;
    for (unsigned e = 0; e < rank; ++e) {
      if (e < d) {
        b.lo[e] = index_of(from, e);
        b.hi[e] = b.lo[e] + 1;
      } else if (e == d) {
        b.lo[e] = index_of(from, e);
        b.hi[e] = b.lo[e] + (to - from) / inner[d];
      } else {
        b.lo[e] = 0;
        b.hi[e] = desc.shape[e];
      }
    }
    return b;
  };
  // Climb: from `first`, emit the partial steps of ever outer dimensions until aligned to a
  // step that reaches past `last`; then descend symmetrically.
  uint64_t pos = first;
  unsigned d = rank - 1;
  while (d > 0) {
    const uint64_t step = inner[d - 1];
    if (pos % step == 0) {  // already aligned: a coarser dimension can take over
      --d;
      continue;
    }
    const uint64_t next = (pos / step + 1) * step;
    if (next > last) break;  // the range ends inside this step: descend from here
    boxes.push_back(aligned_box(pos, next, d));
    pos = next;
    --d;
  }
  // Descend: whole steps of dimension e, then of ever finer dimensions.
  for (unsigned e = d;; ++e) {
    const uint64_t count = (last - pos) / inner[e];
    if (count > 0) {
      boxes.push_back(aligned_box(pos, pos + count * inner[e], e));
      pos += count * inner[e];
    }
    if (e + 1 == rank || pos == last) break;
  }
  if (pos != last) throw InternalError("timing: flat range decomposition did not reach its end");
  return boxes;
}

}  // namespace s2::sim::timing
