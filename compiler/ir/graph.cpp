#include "compiler/ir/graph.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <utility>

#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {

bool single_result(const std::vector<TensorId>& outputs) {
  return !outputs.empty() && outputs[0].valid() &&
         std::none_of(outputs.begin() + 1, outputs.end(), [](TensorId t) { return t.valid(); });
}

int64_t Tensor::numel() const {
  return shape_numel(shape);
}

bool Tensor::contiguous() const {
  // Dense row-major; the stride of a size-1 dimension never matters.
  if (strides.size() != shape.size()) return false;
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

const char* op_category_name(OpCategory category) {
  switch (category) {
    case OpCategory::Forward:
      return "forward";
    case OpCategory::ActivationGrad:
      return "activation_grad";
    case OpCategory::WeightGrad:
      return "weight_grad";
    case OpCategory::WeightUpdate:
      return "weight_update";
  }
  return "?";
}

std::optional<OpCategory> op_category_from_name(std::string_view name) {
  for (OpCategory c : {OpCategory::Forward, OpCategory::ActivationGrad, OpCategory::WeightGrad,
                       OpCategory::WeightUpdate})
    if (name == op_category_name(c)) return c;
  return std::nullopt;
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

bool same_strides(const Shape& shape, const Shape& a, const Shape& b) {
  if (a.size() != shape.size() || b.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && a[i] != b[i]) return false;
  return true;
}

std::optional<Shape> view_strides(const Shape& old_shape, const Shape& old_strides,
                                  const Shape& shape) {
  if (shape_numel(old_shape) != shape_numel(shape) || old_shape.size() != old_strides.size())
    return std::nullopt;
  const Tensor probe{"", DataId(), DType::F32, old_shape, old_strides, 0, OpId()};
  if (probe.contiguous() || shape_numel(shape) == 0) return contiguous_strides(shape);
  // Walk the old dimensions from the innermost; a chunk ends where the next-outer dimension is
  // not dense over it. The new dimensions must exactly tile each chunk.
  Shape strides(shape.size(), 0);
  auto view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_stride = old_strides.back(), chunk_numel = 1, view_numel = 1;
  for (auto d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    const auto u = static_cast<size_t>(d);
    chunk_numel *= old_shape[u];
    if (d == 0 || (old_shape[u - 1] != 1 && old_strides[u - 1] != chunk_numel * chunk_stride)) {
      while (view_d >= 0 && (view_numel < chunk_numel || shape[static_cast<size_t>(view_d)] == 1)) {
        strides[static_cast<size_t>(view_d)] = view_numel * chunk_stride;
        view_numel *= shape[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != chunk_numel) return std::nullopt;
      if (d > 0) {
        chunk_stride = old_strides[u - 1];
        chunk_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shape_text(DType dtype, const Shape& shape) {
  std::string s = std::string(isa::dtype_name(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string ints_text(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? "," : "") + std::to_string(values[i]);
  return s + "]";
}

DataId Graph::add_data(Data data) {
  const DataId id(datas_.size());
  datas_.push_back(std::move(data));
  return id;
}

TensorId Graph::add_tensor(Tensor tensor) {
  S2_CHECK(!names_.count("%" + tensor.name), "tensor name '" + tensor.name + "' used twice");
  const TensorId id(tensors_.size());
  names_["%" + tensor.name] = id.value;
  tensors_.push_back(std::move(tensor));
  return id;
}

OpId Graph::add_op_node(Op op) {
  S2_CHECK(!names_.count("@" + op.name), "op name '" + op.name + "' used twice");
  const OpId id(ops_.size());
  names_["@" + op.name] = id.value;
  for (TensorId out : op.outputs)
    if (out.valid()) tensors_.at(out.index()).producer = id;
  ops_.push_back(std::move(op));
  return id;
}

TensorId Graph::find_tensor(const std::string& name) const {
  const auto it = names_.find("%" + name);
  return it == names_.end() ? TensorId() : TensorId(it->second);
}

OpId Graph::find_op(const std::string& name) const {
  const auto it = names_.find("@" + name);
  return it == names_.end() ? OpId() : OpId(it->second);
}

std::string Graph::unique_name(const std::string& base) const {
  auto taken = [this](const std::string& n) {
    return names_.count("%" + n) || names_.count("@" + n);
  };
  if (!taken(base)) return base;
  // Names are never removed, so the suffixes found taken stay taken: the search resumes where
  // the last one for this base stopped, and N ops of one name cost O(N), not O(N^2).
  int& k = suffix_floor_.try_emplace(base, 2).first->second;
  for (;; ++k) {
    const std::string candidate = base + "_" + std::to_string(k);
    if (!taken(candidate)) return candidate;
  }
}

void Graph::mark_output(TensorId t) {
  if (std::find(outputs_.begin(), outputs_.end(), t) == outputs_.end()) outputs_.push_back(t);
}

TensorId Graph::add_parameter(const std::string& name, TensorRole role, DType dtype,
                              const Shape& shape, std::shared_ptr<const HostArray> init,
                              bool constant) {
  if (init)
    S2_CHECK(init->dtype() == dtype && static_cast<int64_t>(init->size()) == shape_numel(shape),
             "parameter '" + name + "': initial data does not match " + shape_text(dtype, shape));
  Data d{name, dtype, shape_numel(shape), role, constant, std::move(init)};
  const DataId data = add_data(std::move(d));
  return add_tensor(Tensor{name, data, dtype, shape, contiguous_strides(shape), 0, OpId()});
}

TensorRole output_role(OpCategory category) {
  switch (category) {
    case OpCategory::Forward:
      return TensorRole::Activation;
    case OpCategory::ActivationGrad:
      return TensorRole::Gradient;
    case OpCategory::WeightGrad:
      return TensorRole::WeightGradient;
    case OpCategory::WeightUpdate:
      return TensorRole::Scratch;
  }
  return TensorRole::Scratch;
}

namespace {

void fill_attrs(const OpSchema& schema, const std::string& name, Attrs* attrs) {
  for (const auto& entry : attrs->values()) {
    const std::string& key = entry.first;  // (a plain reference: lambdas cannot capture
    const auto& value = entry.second;      // structured bindings in C++17)
    const auto spec = std::find_if(schema.attrs.begin(), schema.attrs.end(),
                                   [&](const AttrSpec& s) { return s.name == key; });
    S2_CHECK(spec != schema.attrs.end(), "op '" + name + "' (" +
                                             std::string(op_type_name(schema.type)) +
                                             "): unknown attribute '" + key + "'");
    S2_CHECK(attr_kind(value) == spec->kind,
             "op '" + name + "': attribute '" + key + "' must be " + attr_kind_name(spec->kind));
  }
  for (const AttrSpec& spec : schema.attrs) {
    if (attrs->has(spec.name)) continue;
    S2_CHECK(spec.default_value.has_value(),
             "op '" + name + "' (" + std::string(op_type_name(schema.type)) +
                 "): required attribute '" + spec.name + "' is missing");
    attrs->set(spec.name, *spec.default_value);
  }
}

}  // namespace

std::vector<TensorId> Graph::add_op(OpType type, const std::string& name, OpCategory category,
                                    const std::vector<TensorId>& inputs, const Attrs& attrs) {
  const OpSchema& schema = op_schema(type);
  Op op{name, type, category, attrs, inputs, {}};
  const bool variadic = !schema.inputs.empty() && schema.inputs.back().variadic;
  S2_CHECK(inputs.size() <= schema.inputs.size() || variadic,
           "op '" + name + "': " + std::to_string(inputs.size()) + " inputs, " +
               std::string(op_type_name(type)) + " takes " + std::to_string(schema.inputs.size()));
  if (op.inputs.size() < schema.inputs.size()) op.inputs.resize(schema.inputs.size());
  for (size_t i = 0; i < op.inputs.size(); ++i)
    S2_CHECK(op.inputs[i].valid() || input_spec(schema, i).optional,
             "op '" + name + "': required input '" + input_spec(schema, i).name + "' is missing");
  fill_attrs(schema, name, &op.attrs);

  const std::vector<OutputSpec> specs = schema.infer(InferContext(*this, op));
  S2_CHECK(specs.size() == schema.outputs.size(),
           "shape inference of '" + name + "' returned the wrong number of outputs");
  // An op with one result names it after itself; the epilogue's optional `pre` output
  // (ops/epilogue.h) does not count, and is named NAME.pre like the outputs of the others.
  size_t results = 0;
  for (size_t k = 0; k < schema.outputs.size(); ++k)
    if (!is_pre_output(schema, k)) ++results;
  for (size_t k = 0; k < specs.size(); ++k) {
    const OutputSpec& spec = specs[k];
    if (spec.absent) {
      op.outputs.push_back(TensorId());
      continue;
    }
    const std::string tname =
        unique_name(results == 1 && k == 0 ? name : name + "." + schema.outputs[k]);
    Tensor t{tname, DataId(), spec.dtype, spec.shape, spec.strides, spec.offset, OpId()};
    if (t.strides.empty()) t.strides = contiguous_strides(t.shape);
    if (spec.alias_input >= 0) {
      t.data = tensor(op.inputs.at(static_cast<size_t>(spec.alias_input))).data;
    } else {
      Data d{tname, spec.dtype, shape_numel(spec.shape), output_role(category), false, nullptr};
      d.space = spec.space;
      t.data = add_data(std::move(d));
    }
    op.outputs.push_back(add_tensor(std::move(t)));
  }
  add_op_node(op);
  return op.outputs;
}

TensorId Graph::add(OpType type, const std::string& name, OpCategory category,
                    const std::vector<TensorId>& inputs, const Attrs& attrs) {
  const std::vector<TensorId> outs = add_op(type, name, category, inputs, attrs);
  S2_CHECK(single_result(outs),
           "op '" + name + "' has " + std::to_string(outs.size()) + " outputs, not one result");
  return outs[0];
}

std::vector<std::vector<OpId>> Graph::consumers() const {
  std::vector<std::vector<OpId>> users(tensors_.size());
  for (size_t i = 0; i < ops_.size(); ++i)
    for (TensorId in : ops_[i].inputs)
      if (in.valid()) users[in.index()].push_back(OpId(i));
  return users;
}

bool Graph::overwrites_input(const Op& op, TensorId out) const {
  if (!out.valid() || op_schema(op.type).fusion == FusionClass::View) return false;
  const Tensor& y = tensor(out);
  for (TensorId in : op.inputs) {
    if (!in.valid()) continue;
    const Tensor& x = tensor(in);
    // The same view of the same data. A placed output (pass place-concat) shares the data of
    // an input in another slice, which it does not overwrite.
    if (x.data == y.data && x.offset == y.offset && x.strides == y.strides && x.shape == y.shape)
      return true;
  }
  return false;
}

bool Graph::writes_in_place(const Op& op) const {
  for (TensorId out : op.outputs)
    if (overwrites_input(op, out)) return true;
  return false;
}

bool Graph::has_side_effect(const Op& op) const {
  if (!writes_in_place(op)) return false;
  for (TensorId out : op.outputs) {
    if (!out.valid()) continue;
    const TensorRole role = data(tensor(out).data).role;
    if (role == TensorRole::Weight || role == TensorRole::OptimizerState ||
        role == TensorRole::State)
      return true;
  }
  return false;
}

template <typename Edge>
void Graph::for_each_order_edge(Edge&& edge) const {
  const size_t n = ops_.size();
  // Data edges.
  for (size_t i = 0; i < n; ++i)
    for (TensorId in : ops_[i].inputs)
      if (in.valid() && tensor(in).producer.valid() && tensor(in).producer.index() != i)
        edge(tensor(in).producer.index(), i);
  // Anti-dependencies: an in-place write to a data node follows every other reader of a
  // tensor on that node that the write itself does not produce.
  if (std::none_of(ops_.begin(), ops_.end(), [&](const Op& op) { return writes_in_place(op); }))
    return;
  // True when t is op w's output, directly or through views of it.
  auto derives_from = [&](TensorId t, size_t w) {
    while (t.valid() && tensor(t).producer.valid()) {
      const size_t p = tensor(t).producer.index();
      if (p == w) return true;
      if (op_schema(ops_[p].type).fusion != FusionClass::View) return false;
      t = ops_[p].inputs.at(0);
    }
    return false;
  };
  std::unordered_map<uint32_t, std::vector<size_t>> readers;  // data id -> reading ops
  for (size_t i = 0; i < n; ++i)
    for (TensorId in : ops_[i].inputs)
      if (in.valid()) readers[tensor(in).data.value].push_back(i);
  for (size_t w = 0; w < n; ++w) {
    if (!writes_in_place(ops_[w])) continue;
    for (TensorId out : ops_[w].outputs) {
      if (!overwrites_input(ops_[w], out)) continue;
      const auto it = readers.find(tensor(out).data.value);
      if (it == readers.end()) continue;
      for (size_t r : it->second) {
        bool reads_written_version = false;
        for (TensorId in : ops_[r].inputs)
          if (in.valid() && tensor(in).data == tensor(out).data && derives_from(in, w))
            reads_written_version = true;
        if (!reads_written_version && r != w) edge(r, w);
      }
    }
  }
}

std::vector<std::vector<OpId>> Graph::predecessors() const {
  std::vector<std::vector<OpId>> pred(ops_.size());
  for_each_order_edge([&](size_t from, size_t to) {
    if (std::find(pred[to].begin(), pred[to].end(), OpId(from)) == pred[to].end())
      pred[to].push_back(OpId(from));
  });
  return pred;
}

std::vector<OpId> Graph::topo_order() const {
  // The edges of predecessors() in flat arrays (it is run after every pass, and a vector per
  // op made most of its time allocation on graphs of many ops): the edges, grouped by their
  // later op with duplicates dropped, and then grouped by their earlier op.
  const size_t n = ops_.size();
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // (from, to)
  for_each_order_edge([&](size_t from, size_t to) {
    edges.emplace_back(static_cast<uint32_t>(from), static_cast<uint32_t>(to));
  });
  // Counting sort by `to` (stable), then drop repeats within each op's predecessors.
  std::vector<size_t> start(n + 1, 0);
  for (const auto& [from, to] : edges)
    ++start[to + 1];
  for (size_t i = 0; i < n; ++i)
    start[i + 1] += start[i];
  std::vector<uint32_t> pred(edges.size());
  {
    std::vector<size_t> at(start.begin(), start.end() - 1);
    for (const auto& [from, to] : edges)
      pred[at[to]++] = from;
  }
  std::vector<size_t> indegree(n, 0);
  std::vector<size_t> succ_start(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto first = pred.begin() + static_cast<std::ptrdiff_t>(start[i]);
    auto last = pred.begin() + static_cast<std::ptrdiff_t>(start[i + 1]);
    for (auto it = first; it != last; ++it) {
      if (std::find(first, it, *it) != it) continue;  // a repeat: not counted
      ++indegree[i];
      ++succ_start[*it + 1];
    }
  }
  for (size_t i = 0; i < n; ++i)
    succ_start[i + 1] += succ_start[i];
  std::vector<uint32_t> succ(succ_start[n]);
  {
    std::vector<size_t> at(succ_start.begin(), succ_start.end() - 1);
    for (size_t i = 0; i < n; ++i) {
      const auto first = pred.begin() + static_cast<std::ptrdiff_t>(start[i]);
      const auto last = pred.begin() + static_cast<std::ptrdiff_t>(start[i + 1]);
      for (auto it = first; it != last; ++it)
        if (std::find(first, it, *it) == it) succ[at[*it]++] = static_cast<uint32_t>(i);
    }
  }
  // Kahn's algorithm, smallest op index first, so the order is deterministic and follows
  // construction order where it can.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(i);
  std::vector<OpId> order;
  order.reserve(n);
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(OpId(i));
    for (size_t k = succ_start[i]; k < succ_start[i + 1]; ++k)
      if (--indegree[succ[k]] == 0) ready.push(succ[k]);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] != 0)
        throw InternalError("graph '" + name_ + "' has a cycle through op '" + ops_[i].name + "'");
  }
  return order;
}

}  // namespace s2::ir
