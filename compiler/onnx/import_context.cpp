#include "compiler/onnx/import_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "compiler/onnx/tensor_data.h"
#include "isa/common/errors.h"

namespace s2::onnx_import {

std::string node_display_name(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
}

double decimal_value(float v) {
  for (int digits = 1; digits <= 9; ++digits) {  // 9 significant digits round-trip any float
    const std::string text = fmt::format("{:.{}g}", static_cast<double>(v), digits);
    if (std::strtof(text.c_str(), nullptr) == v) return std::strtod(text.c_str(), nullptr);
  }
  return static_cast<double>(v);
}

// ---- ImportContext ----

ImportContext::ImportContext(const ModelFile& file, ir::Graph& graph, uint64_t seed)
    : file_(file), graph_(graph), seed_(seed) {
  for (const onnx::NodeProto& node : onnx_graph().node())
    for (const std::string& in : node.input())
      if (!in.empty()) consumed_.insert(in);
  for (const onnx::ValueInfoProto& out : onnx_graph().output())
    consumed_.insert(out.name());
}

void ImportContext::fail(const std::string& problem) const {
  throw UserError(path() + ": " + problem);
}

void ImportContext::bind(const std::string& value, ir::TensorId t) {
  if (!values_.emplace(value, t).second)
    fail("value '" + value + "' is defined twice (ONNX graphs assign each value once)");
}

ir::TensorId ImportContext::lookup(const std::string& value) const {
  const auto it = values_.find(value);
  return it == values_.end() ? ir::TensorId() : it->second;
}

void ImportContext::add_constant(const std::string& value, const onnx::TensorProto* t) {
  if (!constants_.emplace(value, t).second)
    fail("value '" + value + "' is defined twice (ONNX graphs assign each value once)");
}

void ImportContext::add_computed_constant(const std::string& value, onnx::TensorProto t) {
  computed_.push_back(std::move(t));
  add_constant(value, &computed_.back());
}

const IntConstant* ImportContext::int_constant(const std::string& value, const std::string& where) {
  if (const auto it = int_constants_.find(value); it != int_constants_.end())
    return it->second.get();
  const onnx::TensorProto* t = constant(value);
  if (!t ||
      (t->data_type() != onnx::TensorProto::INT64 && t->data_type() != onnx::TensorProto::INT32 &&
       t->data_type() != onnx::TensorProto::BOOL))
    return nullptr;
  auto c = std::make_unique<IntConstant>();
  c->dims.assign(t->dims().begin(), t->dims().end());
  c->values = int_values(*t, where);
  return int_constants_.emplace(value, std::move(c)).first->second.get();
}

void ImportContext::add_int_constant(const std::string& value, IntConstant c) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : c.dims)
    t.add_dims(d);
  for (int64_t v : c.values)
    t.add_int64_data(v);
  add_computed_constant(value, std::move(t));
  int_constants_[value] = std::make_unique<const IntConstant>(std::move(c));
}

bool ImportContext::charge_computed(uint64_t elements) {
  if (elements > kMaxComputedElements - computed_elements_) return false;
  computed_elements_ += elements;
  return true;
}

const onnx::TensorProto* ImportContext::constant(const std::string& value) const {
  const auto it = constants_.find(value);
  return it == constants_.end() ? nullptr : it->second;
}

// ---- NodeContext ----

NodeContext::NodeContext(ImportContext& import, const onnx::NodeProto& node, std::string name)
    : import_(import), node_(node), name_(std::move(name)) {}

void NodeContext::fail(const std::string& problem) const {
  import_.fail("node '" + name_ + "' (" + node_.op_type() + "): " + problem);
}

bool NodeContext::has_input(size_t i) const {
  return i < static_cast<size_t>(node_.input_size()) && !node_.input(static_cast<int>(i)).empty();
}

ir::TensorId NodeContext::input(size_t i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  const std::string& value = node_.input(static_cast<int>(i));
  const ir::TensorId t = import_.lookup(value);
  if (t.valid()) return t;
  if (import_.constant(value))
    fail("input '" + value +
         "' is a constant (INT64 shape or Constant node output) but is used as "
         "a tensor; only FLOAT initializers can be tensors");
  fail("input '" + value +
       "' is not defined: no initializer, graph input or earlier node "
       "output has that name");
}

const ir::Tensor& NodeContext::input_tensor(size_t i) const {
  return import_.graph().tensor(input(i));
}

std::vector<int64_t> NodeContext::constant_ints(size_t i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  const std::string& value = node_.input(static_cast<int>(i));
  const onnx::TensorProto* t = import_.constant(value);
  if (!t)
    fail("input '" + value +
         "' must be a constant (an initializer or a Constant node output); "
         "computed shapes are not supported");
  return int_values(*t, import_.path() + ": node '" + name_ + "' (" + node_.op_type() +
                            "): constant input '" + value + "'");
}

const IntConstant* NodeContext::int_constant(size_t i) const {
  if (!has_input(i)) return nullptr;
  const std::string& value = node_.input(static_cast<int>(i));
  return import_.int_constant(value, import_.path() + ": node '" + name_ + "' (" + node_.op_type() +
                                         "): constant input '" + value + "'");
}

void NodeContext::charge_constant(uint64_t elements) const {
  if (!import_.charge_computed(elements))
    fail("builds a constant of " + std::to_string(elements) + " elements after " +
         std::to_string(import_.computed_elements()) +
         " already: the constants an import builds may hold " +
         std::to_string(kMaxComputedElements) + " elements together");
}

void NodeContext::set_int_output(size_t i, IntConstant value) {
  if (!has_output(i)) return;
  charge_constant(value.values.size());
  import_.add_int_constant(node_.output(static_cast<int>(i)), std::move(value));
}

std::vector<int64_t> NodeContext::constant_dims(size_t i) const {
  constant_floats(i);  // the same checks and errors
  const onnx::TensorProto* t = import_.constant(node_.input(static_cast<int>(i)));
  return {t->dims().begin(), t->dims().end()};
}

std::vector<float> NodeContext::constant_floats(size_t i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  const std::string& value = node_.input(static_cast<int>(i));
  const onnx::TensorProto* t = import_.constant(value);
  if (!t)
    fail("input '" + value +
         "' must be a constant (an initializer or a Constant node output); computed values "
         "are not supported");
  return float_values(*t, import_.path() + ": node '" + name_ + "' (" + node_.op_type() +
                              "): constant input '" + value + "'");
}

const onnx::AttributeProto* NodeContext::find_attr(const std::string& name) const {
  for (const onnx::AttributeProto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void NodeContext::allow_attributes(std::initializer_list<std::string_view> names) const {
  for (const onnx::AttributeProto& a : node_.attribute())
    if (std::find(names.begin(), names.end(), a.name()) == names.end())
      fail_attr(a.name(), "is not supported");
}

void NodeContext::fail_attr(const std::string& name, const std::string& problem) const {
  fail("attribute '" + name + "' " + problem);
}

const onnx::AttributeProto* NodeContext::typed_attr(const std::string& name,
                                                    onnx::AttributeProto::AttributeType type,
                                                    const char* kind) const {
  const onnx::AttributeProto* a = find_attr(name);
  if (a && a->type() != type) fail_attr(name, std::string("must be ") + kind);
  return a;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
  const auto* a = typed_attr(name, onnx::AttributeProto::INT, "an int");
  return a ? a->i() : fallback;
}

float NodeContext::attr_float(const std::string& name, float fallback) const {
  const auto* a = typed_attr(name, onnx::AttributeProto::FLOAT, "a float");
  return a ? a->f() : fallback;
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name,
                                            std::vector<int64_t> fallback) const {
  const auto* a = typed_attr(name, onnx::AttributeProto::INTS, "a list of ints");
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

std::string NodeContext::attr_string(const std::string& name, std::string fallback) const {
  const auto* a = typed_attr(name, onnx::AttributeProto::STRING, "a string");
  return a ? a->s() : fallback;
}

const onnx::TensorProto* NodeContext::attr_tensor(const std::string& name) const {
  const auto* a = typed_attr(name, onnx::AttributeProto::TENSOR, "a tensor");
  return a ? &a->t() : nullptr;
}

bool NodeContext::has_output(size_t i) const {
  return i < static_cast<size_t>(node_.output_size()) && !node_.output(static_cast<int>(i)).empty();
}

void NodeContext::set_output(size_t i, ir::TensorId t) {
  if (has_output(i)) import_.bind(node_.output(static_cast<int>(i)), t);
}

void NodeContext::expect_unused_output(size_t i, const std::string& why) const {
  if (has_output(i) && import_.consumed(node_.output(static_cast<int>(i))))
    fail("output " + std::to_string(i) + " ('" + node_.output(static_cast<int>(i)) +
         "') is used, but " + why);
}

std::vector<ir::TensorId> NodeContext::add_op(ir::OpType type,
                                              const std::vector<ir::TensorId>& inputs,
                                              const ir::Attrs& attrs) {
  try {
    return import_.graph().add_op(type, name_, ir::OpCategory::Forward, inputs, attrs);
  } catch (const UserError& e) {
    import_.fail(e.what());
  }
}

ir::TensorId NodeContext::add(ir::OpType type, const std::vector<ir::TensorId>& inputs,
                              const ir::Attrs& attrs) {
  return add_op(type, inputs, attrs).at(0);
}

}  // namespace s2::onnx_import
