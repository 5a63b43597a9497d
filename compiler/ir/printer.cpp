#include "compiler/ir/printer.h"

#include <sstream>

#include "compiler/ir/visitor.h"
#include "compiler/ops/registry.h"

namespace s2::ir {
namespace {

std::string ref(const Graph& g, TensorId t) {
  return t.valid() ? "%" + g.tensor(t).name : "_";
}

// Each op's line of the dump.
class OpLines : public GraphVisitor<std::string> {
 protected:
  std::string visit(const Graph& g, const Op& op) override { return print_op(g, op); }
};

}  // namespace

std::string print_tensor_decl(const Graph& g, TensorId id) {
  const Tensor& t = g.tensor(id);
  const Data& d = g.data(t.data);
  std::string s = "%" + t.name + ": " + shape_text(t.dtype, t.shape);
  if (d.name != t.name || !t.contiguous() || t.offset != 0)
    s += "{strides=" + ints_text(t.strides) + " offset=" + std::to_string(t.offset) + " data=%" +
         d.name + "}";
  return s;
}

std::string print_op(const Graph& g, const Op& op) {
  std::string s;
  for (size_t k = 0; k < op.outputs.size(); ++k)
    s += (k ? ", " : "") + (op.outputs[k].valid() ? print_tensor_decl(g, op.outputs[k]) : "_");
  s += " = " + std::string(op_type_name(op.type)) + "(";
  for (size_t i = 0; i < op.inputs.size(); ++i)
    s += (i ? ", " : "") + ref(g, op.inputs[i]);
  s += ")";
  const std::string attrs = op.attrs.text();
  if (!attrs.empty()) s += " " + attrs;
  s += "  # " + std::string(op_category_name(op.category));
  if (op.name != (op.outputs.empty() || !op.outputs[0].valid() ? "" : g.tensor(op.outputs[0]).name))
    s += " @" + op.name;
  return s;
}

std::string print_graph(const Graph& g) {
  std::ostringstream os;
  os << "graph " << g.name() << "\n";
  for (size_t i = 0; i < g.num_tensors(); ++i) {
    const Tensor& t = g.tensor(TensorId(i));
    if (t.producer.valid()) continue;
    const Data& d = g.data(t.data);
    os << "  " << print_tensor_decl(g, TensorId(i)) << " " << isa::role_name(d.role);
    if (d.constant) os << " constant";
    if (d.init) os << " init";
    os << "\n";
  }
  for (const std::string& line : OpLines().run(g))
    os << "  " << line << "\n";
  os << "outputs";
  for (TensorId t : g.outputs())
    os << " " << ref(g, t);
  if (g.loss().valid()) os << "\nloss " << ref(g, g.loss());
  os << "\n";
  return os.str();
}

}  // namespace s2::ir
