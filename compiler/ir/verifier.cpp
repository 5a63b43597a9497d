#include "compiler/ir/verifier.h"

#include <algorithm>
#include <set>

#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

class Verifier {
 public:
  explicit Verifier(const Graph& g) : g_(g) {}

  std::vector<std::string> run() {
    check_tensors();
    check_ops();
    if (problems_.empty()) check_acyclic();
    if (problems_.empty()) check_shapes();
    return problems_;
  }

 private:
  void fail(const std::string& problem) { problems_.push_back(problem); }

  bool valid_tensor(TensorId t) const { return t.valid() && t.index() < g_.num_tensors(); }

  void check_tensors() {
    std::set<std::string> names;
    for (size_t i = 0; i < g_.num_tensors(); ++i) {
      const Tensor& t = g_.tensor(TensorId(i));
      const std::string what = "tensor '%" + t.name + "'";
      if (!names.insert(t.name).second) fail(what + ": name used twice");
      if (!t.data.valid() || t.data.index() >= g_.num_datas()) {
        fail(what + ": no data node");
        continue;
      }
      const Data& d = g_.data(t.data);
      if (d.dtype != t.dtype) fail(what + ": element type differs from its data '" + d.name + "'");
      if (t.strides.size() != t.shape.size()) fail(what + ": strides do not match the rank");
      int64_t last = t.offset;
      for (size_t k = 0; k < t.shape.size() && k < t.strides.size(); ++k) {
        if (t.shape[k] <= 0) fail(what + ": dimension " + std::to_string(k) + " is not positive");
        if (t.strides[k] < 0) fail(what + ": negative stride");
        last += (t.shape[k] - 1) * t.strides[k];
      }
      if (t.offset < 0 || last >= d.numel)
        fail(what + ": view reaches element " + std::to_string(last) + " of data '" + d.name +
             "' with " + std::to_string(d.numel) + " elements");
      if (t.producer.valid() && t.producer.index() >= g_.num_ops())
        fail(what + ": producer out of range");
      if (d.init && static_cast<int64_t>(d.init->size()) != d.numel)
        fail("data '" + d.name + "': initial contents have the wrong size");
    }
  }

  void check_ops() {
    std::set<std::string> names;
    std::vector<int> produced(g_.num_tensors(), 0);
    for (size_t i = 0; i < g_.num_ops(); ++i) {
      const Op& op = g_.op(OpId(i));
      const std::string what = "op '" + op.name + "' (" + std::string(op_type_name(op.type)) + ")";
      if (!names.insert(op.name).second) fail(what + ": name used twice");
      const OpSchema* schema = op_registry().find(op_type_name(op.type));
      if (schema == nullptr) {
        fail(what + ": no schema");
        continue;
      }
      if (!input_count_fits(*schema, op.inputs.size()))
        fail(what + ": " + std::to_string(op.inputs.size()) + " inputs, the schema has " +
             std::to_string(schema->inputs.size()));
      for (size_t k = 0; k < op.inputs.size() && !schema->inputs.empty(); ++k) {
        if (!op.inputs[k].valid()) {
          if (!input_spec(*schema, k).optional)
            fail(what + ": required input '" + input_spec(*schema, k).name + "' is absent");
        } else if (!valid_tensor(op.inputs[k])) {
          fail(what + ": input " + std::to_string(k) + " out of range");
        }
      }
      if (op.outputs.size() != schema->outputs.size())
        fail(what + ": " + std::to_string(op.outputs.size()) + " outputs, the schema has " +
             std::to_string(schema->outputs.size()));
      for (TensorId out : op.outputs) {
        if (!out.valid()) continue;
        if (!valid_tensor(out)) {
          fail(what + ": output out of range");
          continue;
        }
        if (++produced[out.index()] > 1)
          fail("tensor '%" + g_.tensor(out).name + "' is produced twice");
        if (g_.tensor(out).producer != OpId(i))
          fail(what + ": output '%" + g_.tensor(out).name + "' names another producer");
      }
      for (const auto& entry : op.attrs.values()) {
        const std::string& key = entry.first;  // (lambdas cannot capture structured
        const auto& value = entry.second;      // bindings in C++17)
        const auto spec = std::find_if(schema->attrs.begin(), schema->attrs.end(),
                                       [&](const AttrSpec& s) { return s.name == key; });
        if (spec == schema->attrs.end())
          fail(what + ": unknown attribute '" + key + "'");
        else if (spec->kind != attr_kind(value))
          fail(what + ": attribute '" + key + "' has the wrong kind");
      }
      for (const AttrSpec& spec : schema->attrs)
        if (!op.attrs.has(spec.name)) fail(what + ": attribute '" + spec.name + "' is missing");
    }
    for (size_t t = 0; t < g_.num_tensors(); ++t)
      if (g_.tensor(TensorId(t)).producer.valid() && produced[t] == 0)
        fail("tensor '%" + g_.tensor(TensorId(t)).name +
             "' names a producer that does not list it");
  }

  void check_acyclic() {
    try {
      g_.topo_order();
    } catch (const InternalError& e) {
      fail(e.what());
    }
  }

  // Shape inference must reproduce every output's type, shape and view.
  void check_shapes() {
    for (size_t i = 0; i < g_.num_ops(); ++i) {
      const Op& op = g_.op(OpId(i));
      const std::string what = "op '" + op.name + "' (" + std::string(op_type_name(op.type)) + ")";
      std::vector<OutputSpec> specs;
      try {
        specs = op_schema(op.type).infer(InferContext(g_, op));
      } catch (const UserError& e) {
        fail(what + ": " + e.what());
        continue;
      }
      for (size_t k = 0; k < specs.size() && k < op.outputs.size(); ++k) {
        const OutputSpec& s = specs[k];
        if (s.absent != !op.outputs[k].valid()) {
          fail(what + ": output " + std::to_string(k) + " presence differs from shape inference");
          continue;
        }
        if (s.absent) continue;
        const Tensor& t = g_.tensor(op.outputs[k]);
        if (t.dtype != s.dtype || t.shape != s.shape)
          fail(what + ": output '%" + t.name + "' is " + shape_text(t.dtype, t.shape) +
               ", shape inference gives " + shape_text(s.dtype, s.shape));
        if (s.alias_input < 0 && g_.data(t.data).space != s.space)
          fail(what + ": output '%" + t.name + "' is in " + isa::space_name(g_.data(t.data).space) +
               " memory, shape inference gives " + isa::space_name(s.space));
        if (s.alias_input >= 0) {
          const TensorId src = op.inputs.at(static_cast<size_t>(s.alias_input));
          if (!src.valid() || g_.tensor(src).data != t.data)
            fail(what + ": output '%" + t.name + "' must share the data of input " +
                 std::to_string(s.alias_input));
          const Shape strides = s.strides.empty() ? contiguous_strides(s.shape) : s.strides;
          if (!same_strides(t.shape, t.strides, strides) || t.offset != s.offset)
            fail(what + ": view '%" + t.name +
                 "' has strides or offset other than shape "
                 "inference gives");
        }
      }
    }
  }

  // Host memory is reached by copies only (the ISA's rule): no other op that computes may
  // read or write a host data node; views of it produce no instruction.
  void check_spaces() {
    for (size_t i = 0; i < g_.num_ops(); ++i) {
      const Op& op = g_.op(OpId(i));
      if (op.type == OpType::Copy || op_schema(op.type).fusion == FusionClass::View) continue;
      for (const std::vector<TensorId>* list : {&op.inputs, &op.outputs})
        for (TensorId t : *list)
          if (t.valid() && g_.data(g_.tensor(t).data).space == isa::MemSpace::Host)
            fail("op '" + op.name + "' (" + std::string(op_type_name(op.type)) + "): tensor '%" +
                 g_.tensor(t).name + "' is in host memory, which only copies reach");
    }
  }

  const Graph& g_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> verify_graph(const Graph& graph) {
  return Verifier(graph).run();
}

void verify_or_throw(const Graph& graph, const std::string& after) {
  const std::vector<std::string> problems = verify_graph(graph);
  if (problems.empty()) return;
  std::string message = "graph '" + graph.name() + "' is malformed " + after + ":";
  for (size_t i = 0; i < problems.size() && i < 10; ++i)
    message += "\n  " + problems[i];
  if (problems.size() > 10) message += "\n  (" + std::to_string(problems.size() - 10) + " more)";
  throw InternalError(message);
}

}  // namespace s2::ir
