#include "compiler/passes/shape_inference.h"

#include <string>
#include <vector>

#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

std::string op_text(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_type_name(op.type)) + ")";
}

// Appends the mismatches between one op's outputs and what its shape inference gives.
// Returns false when shape inference rejects the op's inputs.
bool check_op(const Graph& g, const Op& op, std::vector<std::string>* problems) {
  const OpSchema& schema = op_schema(op.type);
  std::vector<OutputSpec> specs;
  try {
    specs = schema.infer(InferContext(g, op));
  } catch (const UserError& e) {
    problems->push_back(e.what());
    return false;
  }
  S2_CHECK(specs.size() == op.outputs.size(),
           op_text(op) + ": shape inference returned the wrong number of outputs");
  for (size_t k = 0; k < specs.size(); ++k) {
    const OutputSpec& spec = specs[k];
    const std::string what = op_text(op) + ", output '" + schema.outputs[k] + "'";
    if (spec.absent || !op.outputs[k].valid()) {
      if (spec.absent != !op.outputs[k].valid())
        problems->push_back(what + (spec.absent ? " is present, shape inference gives none"
                                                : " is absent, shape inference gives " +
                                                      shape_text(spec.dtype, spec.shape)));
      continue;
    }
    const Tensor& t = g.tensor(op.outputs[k]);
    const std::string out = what + " %" + t.name;
    if (t.dtype != spec.dtype || t.shape != spec.shape) {
      problems->push_back(out + " is " + shape_text(t.dtype, t.shape) + ", shape inference gives " +
                          shape_text(spec.dtype, spec.shape));
      continue;
    }
    if (spec.alias_input < 0) {
      // A new tensor: its own dense buffer, or a slice of a concat's buffer that pass
      // place-concat gave it - never one of the op's inputs, updated in place.
      if (g.overwrites_input(op, op.outputs[k]))
        problems->push_back(out + " overwrites an input in place (strides " + ints_text(t.strides) +
                            " offset " + std::to_string(t.offset) + " of %" + g.data(t.data).name +
                            "), shape inference gives a new tensor");
      continue;
    }
    const TensorId source = op.inputs.at(static_cast<size_t>(spec.alias_input));
    const Shape strides = spec.strides.empty() ? contiguous_strides(spec.shape) : spec.strides;
    if (g.tensor(source).data != t.data)
      problems->push_back(out + " must be a view of input '" +
                          schema.inputs.at(static_cast<size_t>(spec.alias_input)).name + "' (%" +
                          g.tensor(source).name + ")");
    else if (t.strides != strides || t.offset != spec.offset)
      problems->push_back(out + " has strides " + ints_text(t.strides) + " offset " +
                          std::to_string(t.offset) + ", shape inference gives strides " +
                          ints_text(strides) + " offset " + std::to_string(spec.offset));
  }
  return true;
}

}  // namespace

PassResult shape_inference(const Graph& graph) {
  std::vector<std::string> problems;
  const std::vector<OpId> order = graph.topo_order();
  // Ops after one whose inputs are rejected would report its consequences, not causes.
  for (OpId id : order)
    if (!check_op(graph, graph.op(id), &problems)) break;
  if (!problems.empty()) {
    std::string message = "graph '" + graph.name() + "': shape inference found " +
                          std::to_string(problems.size()) + " problem(s):";
    for (size_t i = 0; i < problems.size() && i < 10; ++i)
      message += "\n  " + problems[i];
    if (problems.size() > 10) message += "\n  (" + std::to_string(problems.size() - 10) + " more)";
    throw UserError(message);
  }
  return PassResult{graph, false, "checked " + std::to_string(order.size()) + " ops"};
}

}  // namespace s2::ir
