#include "compiler/ir/parser.h"

#include <new>
#include <optional>
#include <unordered_map>

#include "compiler/ir/parse_terms.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

// One output of an op line, or the tensor of a parameter line, as written.
struct Decl {
  bool absent = false;  // `_`
  int column = 0;
  std::string name;
  TypeTerm type;
  ViewTerm view;
};

class GraphParser {
 public:
  GraphParser(const std::vector<TextLine>& lines, size_t* next, const std::string& file)
      : lines_(lines), next_(*next), file_(file) {}

  ParsedGraph run() {
    if (next_ >= lines_.size())
      throw UserError(file_ + ":" + std::to_string(lines_.empty() ? 1 : lines_.back().number + 1) +
                      ":1: expected 'graph NAME', found the end of the text");
    {
      TextCursor c = cursor(lines_[next_++]);
      if (!c.accept_word("graph")) c.fail("expected 'graph NAME'");
      result_.graph = Graph(c.name("the graph's name"));
      c.expect_end("after the graph's name");
    }
    for (;;) {
      if (next_ >= lines_.size())
        throw UserError(file_ + ":" + std::to_string(lines_.back().number) +
                        ":1: the graph ends without its 'outputs' line");
      TextCursor c = cursor(lines_[next_++]);
      if (c.accept_word("outputs")) {
        outputs(c);
        break;
      }
      if (c.peek() != '%' && c.peek() != '_')
        c.fail("expected a parameter or an op (a line starting with % or _), or 'outputs'");
      statement(c);
    }
    if (next_ < lines_.size()) {
      TextCursor c = cursor(lines_[next_]);
      if (c.accept_word("loss")) {
        ++next_;
        g().set_loss(tensor_ref(c));
        c.expect_end("after the loss");
      }
    }
    const std::vector<std::string> problems = verify_graph(g());
    if (!problems.empty())
      throw UserError(file_ + ": graph '" + g().name() + "' is malformed: " + problems[0]);
    return std::move(result_);
  }

 private:
  Graph& g() { return result_.graph; }
  TextCursor cursor(const TextLine& line) const { return TextCursor(file_, line); }

  // A statement starting with a declaration: a parameter, or an op and its outputs.
  void statement(TextCursor& c) {
    std::vector<Decl> decls = {decl(c)};
    if (c.peek() != ',' && c.peek() != '=') {
      parameter(c, decls[0]);
      return;
    }
    while (c.accept(','))
      decls.push_back(decl(c));
    c.expect('=', "after the op's outputs");
    op(c, decls);
  }

  Decl decl(TextCursor& c) {
    Decl d;
    d.column = c.column();
    if (c.accept('_')) {
      d.absent = true;
      return d;
    }
    c.expect('%', "to start a tensor declaration");
    d.name = c.name("a tensor name");
    if (const auto it = tensor_line_.find(d.name); it != tensor_line_.end())
      c.fail_at(d.column, "tensor %" + name_text(d.name) + " is declared twice (first at line " +
                              std::to_string(it->second) + ")");
    tensor_line_[d.name] = c.line();
    c.expect(':', "after the tensor's name");
    d.type = parse_type(c);
    if (c.peek() == '{') d.view = parse_view(c);
    return d;
  }

  void parameter(TextCursor& c, const Decl& d) {
    if (d.absent) c.fail_at(d.column, "a parameter needs a name: '_' only marks absent outputs");
    if (d.view.present)
      c.fail_at(d.view.column, "a parameter is its data's own dense tensor; it takes no view");
    const TensorRole role = parse_role(c);
    bool constant = false, init = false;
    std::shared_ptr<const HostArray> values;
    for (;;) {
      const int column = c.column();
      if (c.accept_word("constant")) {
        if (constant) c.fail_at(column, "'constant' given twice");
        constant = true;
      } else if (c.accept_word("init")) {
        if (init) c.fail_at(column, "'init' given twice");
        init = true;
        if (c.accept('='))
          values = contents(c, d, [&] { return parse_values(c, d.type, "%" + name_text(d.name)); });
      } else {
        c.expect_end("after the parameter's role (expected 'constant' or 'init')");
        break;
      }
    }
    if (constant && !values)
      c.fail_at(d.column, "constant %" + name_text(d.name) +
                              " needs its contents: init=fill(V) or init=[v0,v1,...]");
    if (init && !values)
      values = contents(c, d, [&] {
        return HostArray(d.type.dtype, static_cast<size_t>(shape_numel(d.type.shape)));
      });
    claim_data(c, d.column, d.name);
    g().add_parameter(d.name, role, d.type.dtype, d.type.shape, values, constant);
  }

  // The initial contents `make` builds; a UserError when they do not fit in memory.
  template <typename Make>
  std::shared_ptr<const HostArray> contents(TextCursor& c, const Decl& d, Make make) {
    try {
      return std::make_shared<const HostArray>(make());
    } catch (const std::bad_alloc&) {
      c.fail_at(d.column, "not enough memory for the " + std::to_string(shape_numel(d.type.shape)) +
                              " elements of the contents of %" + name_text(d.name));
    }
  }

  void op(TextCursor& c, const std::vector<Decl>& decls) {
    const int type_column = c.column();
    const OpSchema& schema = op_schema(parse_op_type(c));
    Op op;
    op.type = schema.type;
    op.inputs = inputs(c, schema);
    op.attrs = parse_attrs(c, schema, type_column);
    std::optional<std::string> explicit_name;
    int name_column = decls[0].column;
    if (c.accept('#')) {
      op.category = parse_category(c);
      name_column = c.column();
      if (c.accept('@')) explicit_name = c.name("the op's name");
    }
    c.expect_end("after the op (expected attributes NAME=VALUE, then '# CATEGORY [@NAME]')");

    auto wrong_count = [&] {
      c.fail_at(decls[0].column, std::string(op_type_name(op.type)) + " has " +
                                     std::to_string(schema.outputs.size()) + " output(s) (" +
                                     join(schema.outputs) + "), found " +
                                     std::to_string(decls.size()) + " declared");
    };
    // Trailing outputs the op does not produce (shape inference says absent) may be left out.
    if (decls.size() > schema.outputs.size()) wrong_count();
    if (explicit_name) {
      op.name = *explicit_name;
    } else if (decls[0].absent) {
      c.fail_at(decls[0].column,
                "an op whose first output is _ needs a name: '@NAME' after its "
                "category");
    } else {
      op.name = decls[0].name;
    }
    if (const auto it = op_line_.find(op.name); it != op_line_.end())
      c.fail_at(name_column, "op @" + name_text(op.name) + " is declared twice (first at line " +
                                 std::to_string(it->second) + ")");

    std::vector<OutputSpec> specs;
    try {
      specs = schema.infer(InferContext(g(), op));
    } catch (const UserError& e) {
      c.fail_at(type_column, e.what());
    }
    S2_CHECK(specs.size() == schema.outputs.size(),
             "shape inference of '" + op.name + "' returned the wrong number of outputs");
    for (size_t k = decls.size(); k < specs.size(); ++k)
      if (!specs[k].absent) wrong_count();
    for (size_t k = 0; k < decls.size(); ++k)
      op.outputs.push_back(output(c, op, schema, k, decls[k], specs[k]));
    op.outputs.resize(specs.size());  // the absent outputs left out
    g().add_op_node(std::move(op));
    op_line_[g().op(OpId(g().num_ops() - 1)).name] = c.line();
    result_.op_line.push_back(c.line());
  }

  std::vector<TensorId> inputs(TextCursor& c, const OpSchema& schema) {
    const std::string type(op_type_name(schema.type));
    c.expect('(', "to open the inputs of " + type);
    std::vector<TensorId> in;
    if (c.peek() != ')') {
      do {
        const int column = c.column();
        if (in.size() >= schema.inputs.size() && !schema.inputs.back().variadic)
          c.fail_at(column, type + " takes " + std::to_string(schema.inputs.size()) +
                                " input(s) (" + input_names(schema) + ")");
        const InputSpec& spec = input_spec(schema, in.size());
        if (c.accept('_')) {
          if (!spec.optional)
            c.fail_at(column, "input '" + spec.name + "' of " + type + " is required, not _");
          in.push_back(TensorId());
        } else {
          in.push_back(tensor_ref(c));
        }
      } while (c.accept(','));
    }
    const int close = c.column();
    c.expect(')', "to close the inputs of " + type);
    for (size_t i = in.size(); i < schema.inputs.size(); ++i) {
      if (!schema.inputs[i].optional)
        c.fail_at(close, "input '" + schema.inputs[i].name + "' of " + type + " is missing");
      in.push_back(TensorId());
    }
    return in;
  }

  // Checks the declaration against shape inference and creates the output tensor.
  TensorId output(TextCursor& c, const Op& op, const OpSchema& schema, size_t k, const Decl& d,
                  const OutputSpec& spec) {
    const std::string what = "output '" + schema.outputs[k] + "' of " +
                             std::string(op_type_name(op.type)) + " '" + op.name + "'";
    if (d.absent != spec.absent)
      c.fail_at(d.column, what + (spec.absent ? " is absent here: write _"
                                              : " is present here: declare it, not _"));
    if (d.absent) return TensorId();
    if (d.type.dtype != spec.dtype || d.type.shape != spec.shape)
      c.fail_at(d.type.column, "%" + name_text(d.name) + " is declared " +
                                   shape_text(d.type.dtype, d.type.shape) +
                                   ", shape inference of " + what + " gives " +
                                   shape_text(spec.dtype, spec.shape));
    Tensor t{d.name, DataId(), spec.dtype, spec.shape, contiguous_strides(spec.shape), 0, OpId()};
    if (spec.alias_input >= 0) {
      t.data = g().tensor(op.inputs.at(static_cast<size_t>(spec.alias_input))).data;
      if (!spec.strides.empty()) t.strides = spec.strides;
      t.offset = spec.offset;
      const std::string& data_name = g().data(t.data).name;
      if (d.view.data && *d.view.data != data_name)
        c.fail_at(d.view.data_column, what + " is a view of %" + name_text(data_name) +
                                          ", not of %" + name_text(*d.view.data));
    } else if (placed(d, t)) {
      // Written into a slice of a buffer another line owns (pass place-concat): the buffer
      // may be declared later, by its own full tensor; until then it grows to fit.
      t.strides = d.view.strides.value_or(t.strides);
      t.offset = d.view.offset.value_or(0);
      if (t.offset < 0) c.fail_at(d.view.column, "%" + name_text(d.name) + ": negative offset");
      for (int64_t s : t.strides)
        if (s < 0) c.fail_at(d.view.column, "%" + name_text(d.name) + ": negative stride");
      const std::string data_name = d.view.data.value_or(d.name);
      t.data = shared_data(c, d.view.data ? d.view.data_column : d.column, data_name, t,
                           output_role(op.category));
      return g().add_tensor(std::move(t));
    } else {
      const std::string data_name = d.view.data.value_or(d.name);
      const auto pending = shared_.find(data_name);
      if (pending != shared_.end() && !pending->second.owned) {
        // The full tensor of a buffer that earlier lines wrote slices of.
        Data& data = g().mutable_data(pending->second.id);
        if (data.dtype != spec.dtype)
          c.fail_at(d.column, "%" + name_text(d.name) + " is " +
                                  shape_text(spec.dtype, spec.shape) + ", but slices of data %" +
                                  name_text(data_name) + " are " +
                                  std::string(isa::dtype_name(data.dtype)));
        data.numel = shape_numel(spec.shape);
        pending->second.owned = true;
        t.data = pending->second.id;
      } else {
        claim_data(c, d.view.data ? d.view.data_column : d.column, data_name);
        Data data{data_name, spec.dtype, shape_numel(spec.shape), output_role(op.category),
                  false,     nullptr};
        data.space = spec.space;  // host memory for a copy with host=1
        t.data = g().add_data(std::move(data));
      }
    }
    if (d.view.strides && *d.view.strides != t.strides)
      c.fail_at(d.view.column, "%" + name_text(d.name) + " is declared with strides " +
                                   ints_text(*d.view.strides) + ", shape inference of " + what +
                                   " gives " + ints_text(t.strides));
    if (d.view.offset && *d.view.offset != t.offset)
      c.fail_at(d.view.column, "%" + name_text(d.name) + " is declared at offset " +
                                   std::to_string(*d.view.offset) + ", shape inference of " + what +
                                   " gives " + std::to_string(t.offset));
    return g().add_tensor(std::move(t));
  }

  void outputs(TextCursor& c) {
    std::vector<TensorId> out;
    while (!c.at_end())
      out.push_back(tensor_ref(c));
    for (TensorId t : out)
      g().mark_output(t);
  }

  TensorId tensor_ref(TextCursor& c) {
    const int column = c.column();
    c.expect('%', "to start a tensor name");
    const std::string name = c.name("a tensor name");
    const TensorId t = g().find_tensor(name);
    if (!t.valid())
      c.fail_at(column, "unknown tensor %" + name_text(name) + " (not declared above)");
    return t;
  }

  // An output declared with a view although its op makes a new buffer: placed into a slice of
  // another buffer (or, trivially, its own dense tensor under another name).
  static bool placed(const Decl& d, const Tensor& fresh) {
    if (!d.view.present) return false;
    return d.view.data.value_or(d.name) != d.name ||
           (d.view.strides && *d.view.strides != fresh.strides) ||
           (d.view.offset && *d.view.offset != 0);
  }

  // The data node a placed output writes into, created at its first mention and grown to
  // hold every slice written before its own full tensor is declared.
  DataId shared_data(TextCursor& c, int column, const std::string& name, const Tensor& t,
                     TensorRole role) {
    int64_t extent = t.offset + 1;
    for (size_t k = 0; k < t.shape.size(); ++k)
      extent += (t.shape[k] - 1) * t.strides[k];
    auto it = shared_.find(name);
    if (it == shared_.end()) {
      claim_data(c, column, name);
      const DataId id = g().add_data(Data{name, t.dtype, extent, role, false, nullptr});
      it = shared_.emplace(name, Shared{id, false}).first;
    }
    Data& data = g().mutable_data(it->second.id);
    if (data.dtype != t.dtype)
      c.fail_at(column, "%" + name_text(t.name) + " is " + std::string(isa::dtype_name(t.dtype)) +
                            ", data %" + name_text(name) + " " +
                            std::string(isa::dtype_name(data.dtype)));
    if (!it->second.owned && extent > data.numel) data.numel = extent;
    return it->second.id;
  }

  // Registers a new data node's name; data=%NAME in a view refers to it.
  void claim_data(TextCursor& c, int column, const std::string& name) {
    if (!data_names_.emplace(name, c.line()).second)
      c.fail_at(column, "data node %" + name_text(name) + " is declared twice (first at line " +
                            std::to_string(data_names_[name]) + ")");
  }

  static std::string join(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names)
      s += (s.empty() ? "" : ", ") + n;
    return s;
  }
  static std::string input_names(const OpSchema& schema) {
    std::vector<std::string> names;
    for (const InputSpec& in : schema.inputs)
      names.push_back(in.variadic ? in.name + "..." : in.name);
    return join(names);
  }

  const std::vector<TextLine>& lines_;
  size_t& next_;
  const std::string& file_;
  ParsedGraph result_;
  std::unordered_map<std::string, int> tensor_line_, op_line_, data_names_;
  struct Shared {
    DataId id;
    bool owned = false;  // its own full tensor has been declared
  };
  std::unordered_map<std::string, Shared> shared_;
};

}  // namespace

ParsedGraph parse_graph_lines(const std::vector<TextLine>& lines, size_t* next,
                              const std::string& file) {
  return GraphParser(lines, next, file).run();
}

Graph parse_graph(std::string_view text, const std::string& file) {
  const std::vector<TextLine> lines = split_text_lines(text);
  size_t next = 0;
  ParsedGraph parsed = parse_graph_lines(lines, &next, file);
  if (next < lines.size())
    throw UserError(file + ":" + std::to_string(lines[next].number) +
                    ":1: unexpected text after the graph's 'outputs' and 'loss' lines");
  return std::move(parsed.graph);
}

}  // namespace s2::ir
