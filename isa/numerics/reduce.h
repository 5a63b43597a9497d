#pragma once
// The PPU's `reduce` (sum, mean, max, sumsq over a set of dimensions), shared by the compiler's
// reference interpreter (reduce_sum, reduce_sumsq) and the simulator's functional model.
//
// Each y element reduces its x elements (its group) in row-major order of x:
//  * sum, sumsq and mean add the group's terms (x, or x * x rounded) in beats of kReduceBeat
//    terms: a beat's terms by a pairwise tree (term 2i plus term 2i + 1, then those sums in
//    pairs, and so on; an odd one out goes up a level unchanged), and the beats' sums one after
//    another into an accumulator that starts at +0.0f. The last beat may be short. mean then
//    divides once by the group's size (as f32). Every operation is the datapath's (fp32.h:
//    rounded to nearest-even, subnormals flushed).
//  * max: y starts at -inf and takes x when x > y or x is NaN (a NaN sticks).
// The result is stored as the datapath stores (a NaN canonical).
//
// Why beats and not one accumulator: a long sum of squares grows until each new term is a few
// units in its last place, and rounding then loses a systematic share of every term. On
// resnet18's 2.36M-element weight gradients one accumulator came out 2.9e-3 low, and gradient
// clipping's global norm 2.3e-4 off PyTorch's; with beats of 32 each is within 3e-6, as close
// as PyTorch's own float32 norm comes to the exact one (tests/isa/numerics_reduce_test.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace s2::numerics {

inline constexpr std::size_t kReduceBeat = 32;

enum class ReduceKind { Sum, Mean, Max, SumSq };

// x is dense row-major of `shape` (outermost first); bit d of `axes` reduces dimension d
// (axes >> shape.size() must be 0). y is dense and holds the kept dimensions in order, one
// element when every dimension is reduced (or the shape is empty); it is overwritten.
void reduce(ReduceKind op, const float* x, const std::vector<uint64_t>& shape, uint32_t axes,
            float* y);

// The number of y elements reduce() writes for `shape` and `axes`.
std::size_t reduce_output_size(const std::vector<uint64_t>& shape, uint32_t axes);

}  // namespace s2::numerics
