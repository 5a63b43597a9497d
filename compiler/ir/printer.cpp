#include "compiler/ir/printer.h"

#include <cstring>
#include <sstream>

#include "compiler/ir/text_syntax.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/registry.h"
#include "isa/common/float_text.h"

namespace s2::ir {
namespace {

std::string ref(const Graph& g, TensorId t) {
  return t.valid() ? "%" + name_text(g.tensor(t).name) : "_";
}

template <typename T, typename Format>
std::string values_text(const std::vector<T>& values, Format format) {
  bool uniform = !values.empty();
  for (const T& v : values)
    uniform = uniform && std::memcmp(&v, &values[0], sizeof(T)) == 0;
  if (uniform) return "fill(" + format(values[0]) + ")";
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? "," : "") + format(values[i]);
  return s + "]";
}

// Each op's line, in topological order.
class OpLines : public GraphVisitor<std::string> {
 protected:
  std::string visit(const Graph& g, const Op& op) override { return print_op(g, op); }
};

// The contents of a constant: "fill(0)" or "[1,2.5,-0]".
std::string init_text(const HostArray& init) {
  if (init.lazy_zeros()) return "fill(0)";
  auto integer = [](auto v) { return std::to_string(v); };
  switch (init.dtype()) {
    case DType::F32:
      return values_text(init.f32(), format_f32);
    case DType::I32:
      return values_text(init.i32(), integer);
    case DType::U8:
      return values_text(init.u8(), [](uint8_t v) { return std::to_string(unsigned{v}); });
    case DType::BF16:
    case DType::F16:  // values of the type, each exact as f32 text
      return values_text(init.f32(), format_f32);
  }
  return "?";
}

}  // namespace

std::string print_tensor_decl(const Graph& g, TensorId id) {
  const Tensor& t = g.tensor(id);
  const Data& d = g.data(t.data);
  std::string s = "%" + name_text(t.name) + ": " + shape_text(t.dtype, t.shape);
  if (d.name != t.name || !t.contiguous() || t.offset != 0)
    s += "{strides=" + ints_text(t.strides) + " offset=" + std::to_string(t.offset) + " data=%" +
         name_text(d.name) + "}";
  return s;
}

std::string print_op(const Graph& g, const Op& op) {
  std::string s;
  size_t shown = op.outputs.size();  // an absent pre output at the end is left out
  while (shown > 1 && !op.outputs[shown - 1].valid() &&
         is_pre_output(op_schema(op.type), shown - 1))
    --shown;
  for (size_t k = 0; k < shown; ++k)
    s += (k ? ", " : "") + (op.outputs[k].valid() ? print_tensor_decl(g, op.outputs[k]) : "_");
  s += " = " + std::string(op_type_name(op.type)) + "(";
  for (size_t i = 0; i < op.inputs.size(); ++i)
    s += (i ? ", " : "") + ref(g, op.inputs[i]);
  s += ")";
  const std::string attrs = op.attrs.text();
  if (!attrs.empty()) s += " " + attrs;
  s += "  # " + std::string(op_category_name(op.category));
  if (op.name != (op.outputs.empty() || !op.outputs[0].valid() ? "" : g.tensor(op.outputs[0]).name))
    s += " @" + name_text(op.name);
  return s;
}

namespace {

std::string graph_text(const Graph& g, const std::vector<std::string>& op_lines) {
  std::ostringstream os;
  os << "graph " << name_text(g.name()) << "\n";
  for (size_t i = 0; i < g.num_tensors(); ++i) {
    const Tensor& t = g.tensor(TensorId(i));
    if (t.producer.valid()) continue;
    const Data& d = g.data(t.data);
    os << "  " << print_tensor_decl(g, TensorId(i)) << " " << isa::role_name(d.role);
    if (d.constant) os << " constant";
    if (d.init) os << " init";
    if (d.init && d.constant) os << "=" << init_text(*d.init);
    os << "\n";
  }
  for (const std::string& line : op_lines)
    os << "  " << line << "\n";
  os << "outputs";
  for (TensorId t : g.outputs())
    os << " " << ref(g, t);
  if (g.loss().valid()) os << "\nloss " << ref(g, g.loss());
  os << "\n";
  return os.str();
}

}  // namespace

std::string print_graph(const Graph& g) {
  return graph_text(g, OpLines().run(g));
}

std::string print_graph(const Graph& g, const std::vector<OpId>& order) {
  std::vector<std::string> lines;
  lines.reserve(order.size());
  for (OpId id : order)
    lines.push_back(print_op(g, g.op(id)));
  return graph_text(g, lines);
}

}  // namespace s2::ir
