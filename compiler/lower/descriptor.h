#pragma once
// A Graph-IR tensor as an S2Train DRAM descriptor. Views (reshape, transpose, slice) cost no
// instruction because a descriptor carries the view itself: the address of the tensor's data
// in the memory plan plus its element offset, and its shape and strides in elements.

#include <cstdint>

#include "compiler/ir/graph.h"
#include "isa/encoding/instruction.h"

namespace s2::lower {

// The descriptor of tensor `id`, its data at `base` (a byte address). `min_rank` appends
// trailing unit dimensions (batch norm's [N,C] read as [N,C,1,1]). UserError naming the
// tensor when its rank is outside 1..4 or a dimension or stride does not fit 32 bits.
isa::TensorDesc tensor_descriptor(const ir::Graph& graph, ir::TensorId id, uint64_t base,
                                  unsigned min_rank = 1);

}  // namespace s2::lower
