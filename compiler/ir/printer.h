#pragma once
// The stable, diffable text form of a graph (`s2c ... --dump-after=PASS`, the lit tests of
// tests/lit/), which parser.h reads back: printing, parsing and printing again gives the same
// text byte for byte.
//
//   graph NAME
//     %x: f32[4,8] input init
//     %fc1.weight: f32[16,8] weight init
//     %zeros: f32[4,16] scratch constant init=fill(0)
//     %fc1: f32[4,16] = gemm(%x, %fc1.weight, _) trans_a=0 trans_b=1  # forward
//     %flat: f32[64]{strides=[1] offset=0 data=%fc1} = reshape(%fc1) shape=[64]  # forward
//   outputs %loss
//   loss %loss
//
// Parameters first (tensors no op produces, in creation order): type, role, `constant` for
// compile-time constants, and `init` when the data node has initial contents. Only the
// contents of constants are printed (`init=fill(V)` when every element is V, else
// `init=[v0,v1,...]`, floats as the shortest decimal that reads back to the same bits); the
// contents of weights, inputs and labels are not part of the text. Then one line per op, in
// topological order: its outputs, `=`, the op type, its inputs, every attribute in name
// order, `#` and the op's category, and `@NAME` when the op's name differs from its first
// output's. `_` is an absent optional input or output, except that an absent epilogue
// output `pre` at the end is left out (the parser takes it as absent). An output that is not its
// data node's own dense view (a view, an in-place update) names its strides, offset and data node
// in braces. Names follow text_syntax.h (bare, or quoted).

#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir {

std::string print_graph(const Graph& graph);

// The same with the ops listed in `order`, an execution order of every op (a schedule),
// instead of the topological order.
std::string print_graph(const Graph& graph, const std::vector<OpId>& order);

// One op as printed in the graph text.
std::string print_op(const Graph& graph, const Op& op);

// "%name: f32[2,3]" plus view details when the tensor is not its data's own dense view.
std::string print_tensor_decl(const Graph& graph, TensorId t);

}  // namespace s2::ir
