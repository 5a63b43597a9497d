#include "compiler/lower/descriptor.h"

#include <cstddef>
#include <string>

#include "isa/common/errors.h"

namespace s2::lower {

namespace {

// A view of rank above the descriptor's with the same elements in the same row-major order:
// adjacent axes merge where the outer one steps exactly over the inner one (ShuffleNet's
// [N,C/2,2,H,W] transposed view keeps H and W together: rank 4).
ir::Tensor merge_axes(ir::Tensor t) {
  for (size_t i = t.shape.size() - 1; i-- > 0 && t.shape.size() > isa::kMaxRank;) {
    if (t.shape[i] != 1 && t.shape[i + 1] != 1 && t.strides[i] != t.strides[i + 1] * t.shape[i + 1])
      continue;
    const int64_t stride = t.shape[i + 1] == 1 ? t.strides[i] : t.strides[i + 1];
    t.shape[i] *= t.shape[i + 1];
    t.strides[i] = stride;
    t.shape.erase(t.shape.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    t.strides.erase(t.strides.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  }
  return t;
}

}  // namespace

isa::TensorDesc tensor_descriptor(const ir::Graph& graph, ir::TensorId id, uint64_t base,
                                  unsigned min_rank) {
  const ir::Tensor t = graph.tensor(id).shape.size() > isa::kMaxRank ? merge_axes(graph.tensor(id))
                                                                     : graph.tensor(id);
  const std::string where = "tensor '" + t.name + "' " + ir::shape_text(t.dtype, t.shape);
  if (t.shape.empty() || t.shape.size() > isa::kMaxRank)
    throw UserError(where + ": rank " + std::to_string(t.shape.size()) +
                    " has no S2Train descriptor (ranks 1.." + std::to_string(isa::kMaxRank) +
                    "); reshape it first");
  S2_CHECK(t.offset >= 0, where + ": negative offset " + std::to_string(t.offset));
  isa::TensorDesc d;
  d.addr = base + static_cast<uint64_t>(t.offset) * isa::dtype_bytes(t.dtype);
  d.space = graph.data(t.data).space;
  d.dtype = t.dtype;
  d.rank = static_cast<uint8_t>(t.shape.size());
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const int64_t extent = t.shape[i];
    int64_t stride = t.strides[i];
    // A unit dimension addresses nothing, so its stride is free (views may leave any value).
    if (extent == 1 && (stride < 0 || stride > INT64_C(0xffffffff))) stride = 0;
    if (extent < 1 || extent > INT64_C(0xffffffff) || stride < 0 || stride > INT64_C(0xffffffff))
      throw UserError(where + " with strides " + ir::ints_text(t.strides) + ": dimension " +
                      std::to_string(i) +
                      " does not fit an S2Train descriptor (32-bit sizes and strides >= 0)");
    d.shape[i] = static_cast<uint32_t>(extent);
    d.strides[i] = static_cast<uint32_t>(stride);
  }
  for (; d.rank < min_rank && d.rank < isa::kMaxRank; ++d.rank) {
    d.shape[d.rank] = 1;
    d.strides[d.rank] = 1;
  }
  return d;
}

}  // namespace s2::lower
