#pragma once
// The PPU's `reduce` (sum, mean, max, sumsq over a set of dimensions), shared by the compiler's
// reference interpreter (reduce_sum, reduce_sumsq) and the simulator's functional model.
//
// Each y element reduces its x elements (its group) in row-major order of x:
//  * sum, sumsq and mean add the group's terms (x, or x * x rounded) by a pairwise tree: term 2i
//    plus term 2i + 1, then those sums in pairs, and so on; at each level an odd one out goes up
//    unchanged. An empty group sums to +0. mean then divides once by the group's size (as f32).
//    Every operation is the datapath's (fp32.h: rounded to nearest-even, subnormals flushed).
//    The PPU adds its lanes' terms by an adder tree and keeps one partial sum per level above
//    it, so any length takes a few dozen registers.
//  * max: y starts at -inf and takes x when x > y or x is NaN (a NaN sticks).
// The result is stored as the datapath stores (a NaN canonical).
//
// Why a tree and not one accumulator: a long sum of squares grows until each new term is a few
// units in its last place, and rounding then loses a systematic share of every term. On
// resnet18's 2.36M-element weight gradients one accumulator came out 2.9e-3 low, and gradient
// clipping's global norm 2.3e-4 off PyTorch's; the tree's error grows with the logarithm of
// the length (tests/isa/numerics_reduce_test.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::numerics {

// x is dense row-major of `shape` (outermost first); bit d of `axes` reduces dimension d
// (axes >> shape.size() must be 0). y is dense and holds the kept dimensions in order, one
// element when every dimension is reduced (or the shape is empty); it is overwritten.
void reduce(isa::ReduceOp op, const float* x, const std::vector<uint64_t>& shape, uint32_t axes,
            float* y);

// The number of y elements reduce() writes for `shape` and `axes`.
std::size_t reduce_output_size(const std::vector<uint64_t>& shape, uint32_t axes);

}  // namespace s2::numerics
