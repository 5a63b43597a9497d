#include "simulator/checker/byte_runs.h"

#include <algorithm>

namespace s2::sim::checker {
namespace {

struct Dim {
  uint64_t extent;
  uint64_t stride;  // bytes
};

}  // namespace

ByteSet byte_set(const isa::TensorDesc& desc) {
  const uint64_t elem = isa::dtype_bytes(desc.dtype);
  std::vector<Dim> dims;  // outermost first, only the ones that move the address
  for (unsigned d = 0; d < desc.rank; ++d) {
    if (desc.shape[d] == 0) return {};
    if (desc.shape[d] == 1 || desc.strides[d] == 0) continue;
    dims.push_back({desc.shape[d], isa::saturating_mul(desc.strides[d], elem)});
  }
  // Merge the densely packed innermost dimensions into one run of `run` bytes.
  uint64_t run = elem;
  while (!dims.empty() && dims.back().stride == run) {
    run = isa::saturating_mul(run, dims.back().extent);
    dims.pop_back();
  }
  uint64_t runs = 1;
  for (const Dim& d : dims)
    runs = isa::saturating_mul(runs, d.extent);
  if (runs > kMaxRuns) return {{desc.addr, isa::saturating_add(desc.addr, desc.span_bytes())}};

  std::vector<Interval> out;
  out.reserve(static_cast<size_t>(runs));
  // Odometer over the outer dimensions; `offset` tracks the address of the current run.
  std::vector<uint64_t> index(dims.size(), 0);
  uint64_t offset = 0;
  for (uint64_t r = 0; r < runs; ++r) {
    const uint64_t begin = isa::saturating_add(desc.addr, offset);
    out.push_back({begin, isa::saturating_add(begin, run)});
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d].extent) {
        offset += dims[d].stride;
        break;
      }
      offset -= (dims[d].extent - 1) * dims[d].stride;
      index[d] = 0;
    }
  }
  return normalize(std::move(out));
}

ByteSet normalize(std::vector<Interval> intervals) {
  const bool sorted =
      std::is_sorted(intervals.begin(), intervals.end(),
                     [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  if (!sorted)
    std::sort(intervals.begin(), intervals.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  ByteSet out;
  for (const Interval& iv : intervals) {
    if (iv.begin >= iv.end) continue;
    if (!out.empty() && iv.begin <= out.back().end)
      out.back().end = std::max(out.back().end, iv.end);
    else
      out.push_back(iv);
  }
  return out;
}

ByteSet unite(const ByteSet& a, const ByteSet& b) {
  std::vector<Interval> all;
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all),
             [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
  return normalize(std::move(all));
}

ByteSet clip(const ByteSet& set, uint64_t lo, uint64_t hi) {
  ByteSet out;
  for (const Interval& iv : set) {
    const uint64_t b = std::max(iv.begin, lo);
    const uint64_t e = std::min(iv.end, hi);
    if (b < e) out.push_back({b, e});
  }
  return out;
}

ByteSet outside(const ByteSet& set, uint64_t lo, uint64_t hi) {
  ByteSet out;
  for (const Interval& iv : set) {
    if (iv.begin < lo) out.push_back({iv.begin, std::min(iv.end, lo)});
    if (iv.end > hi) out.push_back({std::max(iv.begin, hi), iv.end});
  }
  return normalize(std::move(out));
}

std::optional<Interval> first_common(const ByteSet& a, const ByteSet& b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t lo = std::max(a[i].begin, b[j].begin);
    const uint64_t hi = std::min(a[i].end, b[j].end);
    if (lo < hi) return Interval{lo, hi};
    if (a[i].end <= b[j].end)
      ++i;
    else
      ++j;
  }
  return std::nullopt;
}

Interval hull(const ByteSet& set) {
  if (set.empty()) return {0, 0};
  return {set.front().begin, set.back().end};
}

uint64_t total_bytes(const ByteSet& set) {
  uint64_t sum = 0;
  for (const Interval& iv : set)
    sum += iv.bytes();
  return sum;
}

}  // namespace s2::sim::checker
