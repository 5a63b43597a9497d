#pragma once
// The reference interpreter of the Graph-IR: fp32 plain-loop kernels (one per op type, in
// the op registry) over one host buffer per data node, with the hardware's numerics
// (isa/numerics/: subnormals flushed, the PE array's K-tiled accumulation). It is the oracle
// for gradient checks, for fusion and lowering, and for the simulator's functional mode.

#include <vector>

#include "compiler/ir/graph.h"
#include "isa/numerics/pe_gemm.h"

namespace s2::ir {

class Interpreter {
 public:
  // Allocates a buffer per data node, filled from its initial contents (as datapath values:
  // subnormals flushed) or with zeros. k_tile: the PE array's K-tile (isa/numerics/pe_gemm.h),
  // the target's PE rows; the default is the base configuration's.
  explicit Interpreter(const Graph& graph, size_t k_tile = numerics::kDefaultKTile);

  // Runs every op once, in topological order. Running again continues from the current
  // buffers: in-place updates (weights, optimizer state) carry over, like a second step.
  void run();

  // The tensor's elements in row-major order, gathered through its view.
  HostArray value(TensorId t) const;
  // Overwrites the elements of a tensor (through its view) with `values`.
  void set_value(TensorId t, const HostArray& values);

  const HostArray& buffer(DataId d) const { return buffers_.at(d.index()); }
  HostArray& buffer(DataId d) { return buffers_.at(d.index()); }

 private:
  void run_op(const Op& op);

  const Graph& graph_;
  std::vector<OpId> order_;
  std::vector<HostArray> buffers_;
  numerics::KTiledGemm pe_;
};

}  // namespace s2::ir
