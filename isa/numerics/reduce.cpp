#include "isa/numerics/reduce.h"

#include <cmath>
#include <limits>

#include "isa/numerics/fp32.h"

namespace s2::numerics {
namespace {

// Adds terms by the pairwise tree of reduce.h, streaming: partial_[l] holds the sum of the last
// complete run of 2^l terms not yet paired (bit l of occupied_), so a new term pairs with the
// partials below it as a binary counter carries.
class PairwiseSum {
 public:
  void push(float term) {
    unsigned level = 0;
    while ((occupied_ >> level) & 1u) {
      term = add(partial_[level], term);  // the earlier run on the left
      occupied_ &= ~(uint64_t{1} << level);
      ++level;
    }
    partial_[level] = term;
    occupied_ |= uint64_t{1} << level;
  }
  // The unpaired runs, the latest (smallest) first: each earlier run plus all that came after.
  float total() const {
    bool any = false;
    float right = 0.0f;
    for (unsigned level = 0; level < 64; ++level) {
      if (!((occupied_ >> level) & 1u)) continue;
      right = any ? add(partial_[level], right) : partial_[level];
      any = true;
    }
    return any ? right : 0.0f;
  }

 private:
  float partial_[64];
  uint64_t occupied_ = 0;
};

// Walks an index over `dims` (each with its extent and x stride) in row-major order, keeping
// the x offset in step.
struct Odometer {
  std::vector<uint64_t> extent, stride, index;
  uint64_t offset = 0;
  // Advances; returns false after the last position (the offset is back at 0).
  bool next() {
    for (std::size_t d = index.size(); d-- > 0;) {
      offset += stride[d];
      if (++index[d] < extent[d]) return true;
      offset -= stride[d] * extent[d];
      index[d] = 0;
    }
    return false;
  }
};

}  // namespace

std::size_t reduce_output_size(const std::vector<uint64_t>& shape, uint32_t axes) {
  std::size_t n = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!((axes >> d) & 1u)) n *= shape[d];
  return n;
}

void reduce(isa::ReduceOp op, const float* x, const std::vector<uint64_t>& shape, uint32_t axes,
            float* y) {
  const std::size_t rank = shape.size();
  std::vector<uint64_t> x_stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;)
    x_stride[d - 1] = x_stride[d] * shape[d];
  // The kept dimensions walk the outputs; the reduced ones but the innermost walk a group, whose
  // innermost reduced dimension is a loop of its own (often contiguous).
  Odometer outputs, group;
  uint64_t inner_extent = 1, inner_stride = 0, group_size = 1;
  bool have_inner = false;
  for (std::size_t d = 0; d < rank; ++d) {
    if (!((axes >> d) & 1u)) {
      outputs.extent.push_back(shape[d]);
      outputs.stride.push_back(x_stride[d]);
      continue;
    }
    group_size *= shape[d];
    if (have_inner) {  // the previous innermost becomes outer
      group.extent.push_back(inner_extent);
      group.stride.push_back(inner_stride);
    }
    have_inner = true;
    inner_extent = shape[d];
    inner_stride = x_stride[d];
  }
  outputs.index.assign(outputs.extent.size(), 0);
  group.index.assign(group.extent.size(), 0);
  const std::size_t out_size = reduce_output_size(shape, axes);
  // Calls take(value) for each element of the group at `base`, in row-major order of x.
  const auto for_each_in_group = [&](const float* base, auto&& take) {
    if (group_size == 0) return;
    do {
      const float* run = base + group.offset;
      for (uint64_t i = 0; i < inner_extent; ++i)
        take(load(run[i * inner_stride]));
    } while (group.next());
  };
  for (std::size_t j = 0; j < out_size; ++j, outputs.next()) {
    const float* base = x + outputs.offset;
    if (op == isa::ReduceOp::Max) {
      float m = -std::numeric_limits<float>::infinity();
      for_each_in_group(base, [&](float v) {
        if (v > m || std::isnan(v)) m = v;
      });
      y[j] = store(m);
      continue;
    }
    PairwiseSum sum;
    const bool squares = op == isa::ReduceOp::SumSq;
    for_each_in_group(base, [&](float v) { sum.push(squares ? mul(v, v) : v); });
    float r = sum.total();
    if (op == isa::ReduceOp::Mean) r = div(r, static_cast<float>(group_size));
    y[j] = store(r);
  }
}

}  // namespace s2::numerics
