#include "tests/compiler/onnx_test_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace s2::onnx_import::testing {
namespace {

void set_dims(onnx::ValueInfoProto* v, const std::vector<Dim>& dims, int32_t elem_type) {
  onnx::TypeProto::Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  onnx::TensorShapeProto* shape = t->mutable_shape();
  for (const Dim& d : dims) {
    onnx::TensorShapeProto::Dimension* dim = shape->add_dim();
    if (d.value > 0) dim->set_dim_value(d.value);
    if (!d.param.empty()) dim->set_dim_param(d.param);
  }
}

onnx::AttributeProto* add_attr(onnx::NodeProto& node, const std::string& name,
                               onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

}  // namespace

float pattern_value(size_t i) {
  return static_cast<float>((i * 7 + 3) % 11) / 11.0f - 0.5f;
}

TestModel::TestModel(int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("s2 onnx_import tests");
  onnx::OperatorSetIdProto* op_set = model_.add_opset_import();
  op_set->set_domain("");
  op_set->set_version(opset);
  graph().set_name("test");
}

void TestModel::input(const std::string& name, const std::vector<Dim>& dims, int32_t elem_type) {
  onnx::ValueInfoProto* v = graph().add_input();
  v->set_name(name);
  set_dims(v, dims, elem_type);
}

void TestModel::output(const std::string& name, const std::vector<Dim>& dims) {
  onnx::ValueInfoProto* v = graph().add_output();
  v->set_name(name);
  set_dims(v, dims, onnx::TensorProto::FLOAT);
}

onnx::TensorProto& TestModel::initializer(const std::string& name, const std::vector<int64_t>& dims,
                                          std::vector<float> values) {
  size_t n = 1;
  for (int64_t d : dims)
    n *= static_cast<size_t>(d);
  if (values.empty())
    for (size_t i = 0; i < n; ++i)
      values.push_back(pattern_value(i));
  if (values.size() != n) throw std::logic_error("initializer '" + name + "': wrong value count");
  onnx::TensorProto* t = graph().add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t->add_dims(d);
  std::string raw(n * sizeof(float), '\0');
  std::memcpy(raw.data(), values.data(), raw.size());  // the tests run on little-endian hosts
  t->set_raw_data(raw);
  return *t;
}

onnx::TensorProto& TestModel::int64_initializer(const std::string& name,
                                                const std::vector<int64_t>& values) {
  onnx::TensorProto* t = graph().add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values)
    t->add_int64_data(v);
  return *t;
}

onnx::NodeProto& TestModel::node(const std::string& op_type, const std::string& name,
                                 const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs) {
  onnx::NodeProto* n = graph().add_node();
  n->set_op_type(op_type);
  n->set_name(name);
  for (const std::string& in : inputs)
    n->add_input(in);
  for (const std::string& out : outputs)
    n->add_output(out);
  return *n;
}

void TestModel::write(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out || !model_.SerializeToOstream(&out)) throw std::runtime_error("cannot write " + path);
}

void attr_i(onnx::NodeProto& node, const std::string& name, int64_t value) {
  add_attr(node, name, onnx::AttributeProto::INT)->set_i(value);
}

void attr_f(onnx::NodeProto& node, const std::string& name, float value) {
  add_attr(node, name, onnx::AttributeProto::FLOAT)->set_f(value);
}

void attr_ints(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* a = add_attr(node, name, onnx::AttributeProto::INTS);
  for (int64_t v : values)
    a->add_ints(v);
}

void attr_s(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  add_attr(node, name, onnx::AttributeProto::STRING)->set_s(value);
}

TestModel linear_model(int64_t opset) {
  TestModel m(opset);
  m.input("x", {2, 6});
  m.initializer("fc.weight", {4, 6});
  attr_i(m.node("Gemm", "/fc/Gemm", {"x", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 4});
  return m;
}

TestModel around(int64_t channels, int64_t opset) {
  TestModel m(opset);
  m.input("x", {2, 3, 8, 8});
  m.initializer("fc.weight", {4, channels});
  m.node("GlobalAveragePool", "/gap", {"y"}, {"g"});
  m.node("Flatten", "/flatten", {"g"}, {"f"});
  attr_i(m.node("Gemm", "/fc/Gemm", {"f", "fc.weight"}, {"logits"}), "transB", 1);
  m.output("logits", {2, 4});
  return m;
}

onnx::NodeProto& first_node(TestModel& m, const std::string& type, const std::string& name,
                            const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs) {
  onnx::NodeProto& n = m.node(type, name, inputs, outputs);
  auto* nodes = m.graph().mutable_node();
  // A repeated message field holds pointers: swapping moves them, `n` stays valid.
  for (int i = nodes->size() - 1; i > 0; --i)
    nodes->SwapElements(i, i - 1);
  return n;
}

TempDir::TempDir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test =
      info ? std::string(info->test_suite_name()) + "." + info->name() : "test";
  path_ = (std::filesystem::temp_directory_path() /
           ("s2_onnx_" + std::to_string(::getpid()) + "_" + test))
              .string();
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace s2::onnx_import::testing
