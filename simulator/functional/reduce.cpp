#include "simulator/functional/reduce.h"

#include <cmath>
#include <limits>
#include <string>

#include "simulator/functional/operands.h"

namespace s2::sim::functional {

std::vector<float> reduce(isa::ReduceOp op, const std::vector<float>& x,
                          const std::vector<uint32_t>& shape, uint32_t axes) {
  const size_t rank = shape.size();
  // Stride in y of each x dimension (0 for reduced ones), and the sizes of y and of a group.
  std::vector<size_t> out_stride(rank, 0);
  size_t out_size = 1, group = 1;
  for (size_t d = rank; d-- > 0;) {
    if ((axes >> d) & 1u) {
      group *= shape[d];
      continue;
    }
    out_stride[d] = out_size;
    out_size *= shape[d];
  }
  const float start = op == isa::ReduceOp::Max ? -std::numeric_limits<float>::infinity() : 0.0f;
  std::vector<float> y(out_size, start);
  // Walk x in row-major order, keeping the y position in step (an odometer).
  std::vector<size_t> index(rank, 0);
  size_t at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    float& acc = y[at];
    switch (op) {
      case isa::ReduceOp::Sum:
      case isa::ReduceOp::Mean:
        acc += v;
        break;
      case isa::ReduceOp::SumSq:
        acc += v * v;
        break;
      case isa::ReduceOp::Max:
        if (v > acc || std::isnan(v)) acc = v;
        break;
    }
    for (size_t d = rank; d-- > 0;) {
      at += out_stride[d];
      if (++index[d] < shape[d]) break;
      at -= out_stride[d] * shape[d];
      index[d] = 0;
    }
  }
  if (op == isa::ReduceOp::Mean)
    for (float& v : y)
      v = v / static_cast<float>(group);
  return y;
}

void run_reduce(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const isa::TensorDesc& xd = ops.desc(isa::Slot::X);
  const uint32_t axes = inst.u(isa::Field::Axes);
  if (axes >> xd.rank != 0)
    ops.fail("axes mask " + std::to_string(axes) + " names a dimension past x's rank " +
             std::to_string(xd.rank));
  std::vector<float> y =
      reduce(inst.as<isa::ReduceOp>(isa::Field::Reduce), ops.f32(isa::Slot::X), xd.dims(), axes);
  if (y.size() != ops.desc(isa::Slot::Y).elements())
    ops.fail("y has " + std::to_string(ops.desc(isa::Slot::Y).elements()) +
             " elements, the reduction leaves " + std::to_string(y.size()));
  ops.write(isa::Slot::Y, y);
}

}  // namespace s2::sim::functional
