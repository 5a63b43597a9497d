#pragma once
// Building small ONNX models in C++ for the importer's tests: a ModelProto with an opset, one
// graph, and helpers for inputs, outputs, initializers, nodes and attributes, written to a
// file in a per-test temporary directory.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace s2::onnx_import::testing {

// A dimension of a graph input or output: a size, a symbolic name, or unknown.
struct Dim {
  int64_t value = 0;                // > 0: static
  std::string param;                // non-empty: symbolic
  Dim(int64_t v) : value(v) {}      // NOLINT: sizes read naturally as {2, 3, 8, 8}
  Dim(const char* p) : param(p) {}  // NOLINT
  static Dim unknown() { return Dim(int64_t{0}); }
};

class TestModel {
 public:
  explicit TestModel(int64_t opset = 17);

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  void input(const std::string& name, const std::vector<Dim>& dims,
             int32_t elem_type = onnx::TensorProto::FLOAT);
  void output(const std::string& name, const std::vector<Dim>& dims);
  // A FLOAT initializer stored as raw_data; empty `values` fills it with a deterministic
  // pattern.
  onnx::TensorProto& initializer(const std::string& name, const std::vector<int64_t>& dims,
                                 std::vector<float> values = {});
  onnx::TensorProto& int64_initializer(const std::string& name, const std::vector<int64_t>& values);

  onnx::NodeProto& node(const std::string& op_type, const std::string& name,
                        const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs);

  // Serializes the model to `path`.
  void write(const std::string& path) const;

 private:
  onnx::ModelProto model_;
};

void attr_i(onnx::NodeProto& node, const std::string& name, int64_t value);
void attr_f(onnx::NodeProto& node, const std::string& name, float value);
void attr_ints(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);
void attr_s(onnx::NodeProto& node, const std::string& name, const std::string& value);

// The deterministic pattern of initializer(): element i, in [-0.5, 0.5).
float pattern_value(size_t i);

// x[2,6] -> Gemm(fc.weight [4,6], transB) -> logits[2,4]
TestModel linear_model(int64_t opset = 17);

// x[2,3,8,8] -> <node> -> GlobalAveragePool -> Flatten -> Gemm(fc.weight [4,C]) -> logits,
// to be completed by a node (added with first_node) that writes `y` with C channels.
TestModel around(int64_t channels, int64_t opset = 17);

// Adds a node and moves it to the front of the graph, before the nodes of `around`.
onnx::NodeProto& first_node(TestModel& m, const std::string& type, const std::string& name,
                            const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs);

// A fresh directory for one test, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace s2::onnx_import::testing
