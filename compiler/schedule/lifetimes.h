#pragma once
// Lifetimes of the program's DRAM buffers under one execution order: the input of the memory
// planners (compiler/memory) and of the live-bytes lower bound.
//
// One buffer per data node that an op or a graph output uses, of numel * dtype bytes.
//   * Persistent (first 0, last = the final step): weights, optimizer state, inputs, labels,
//     batch-norm state and compile-time constants. They hold values across steps, so the
//     arena may never reuse their space.
//   * Otherwise live from the step of the first op that writes a tensor on the data node to
//     the step of the last op that reads or writes one (views count as uses of their data:
//     a transposed feature map read by a backward GEMM keeps the feature map alive). Data of
//     graph outputs and of the loss stays live to the final step, where the host reads it.
//     A non-persistent data node no op writes (a parameter of an unusual role) carries initial
//     contents, so it is live from step 0.
//
// Steps are indices into `order`; an op's inputs and outputs are live at the same step.

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/memory/buffer.h"

namespace s2::schedule {

struct Lifetimes {
  std::vector<memory::Buffer> buffers;
  std::vector<ir::DataId> data;         // buffer i holds data node data[i]
  std::vector<int32_t> buffer_of_data;  // per data node: its buffer index, or -1 if unused
};

// True for data that must keep its value for the whole step and across steps.
bool is_persistent(const ir::Data& data);

// Bytes of a data node: numel * the size of its element type.
uint64_t data_bytes(const ir::Data& data);

// Precondition: `order` holds every op of `graph` exactly once (InternalError otherwise).
Lifetimes compute_lifetimes(const ir::Graph& graph, const std::vector<ir::OpId>& order);

}  // namespace s2::schedule
