#pragma once
// The stable, diffable text form of a graph (`s2c ... --dump-after=PASS`, golden tests).
//
//   graph NAME
//     %x: f32[4,8] input init
//     %fc1.weight: f32[16,8] weight init
//     %fc1: f32[4,16] = gemm(%x, %fc1.weight, _) trans_a=0 trans_b=1    # forward
//     %flat: f32[4,16]{strides=[16,1] offset=0 data=%fc1} = reshape(%fc1) shape=[4,16]  # forward
//   outputs %loss
//
// Parameters first (tensors no op produces, in creation order), then ops in topological
// order. `_` is an absent optional input or output. An output whose data node belongs to
// another tensor (a view, an in-place update) names that data node.

#include <string>

#include "compiler/ir/graph.h"

namespace s2::ir {

std::string print_graph(const Graph& graph);

// One op as printed in the graph text.
std::string print_op(const Graph& graph, const Op& op);

// "%name: f32[2,3]" plus view details when the tensor is not its data's own dense view.
std::string print_tensor_decl(const Graph& graph, TensorId t);

}  // namespace s2::ir
