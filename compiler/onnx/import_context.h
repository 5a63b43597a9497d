#pragma once
// The state one import shares between its steps and the per-op translators: which IR tensor
// each ONNX value name stands for, which values are constants known at import time, and the
// node being translated, with typed access to its inputs and attributes. Every error raised
// through these classes names the file, and the node when there is one.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/onnx/model_file.h"

namespace s2::onnx_import {

// An integer tensor known at import time: a static shape computation's value.
struct IntConstant {
  std::vector<int64_t> dims;  // empty: a scalar
  std::vector<int64_t> values;
};

// The elements every constant the import builds (folds, ConstantOfShape) may hold together:
// a few bytes of ONNX must not ask for unbounded memory or time. Models build shapes, masks
// and fills far below this.
inline constexpr uint64_t kMaxComputedElements = uint64_t{1} << 28;

class ImportContext {
 public:
  // `seed`: the import's seed (OnnxImportOptions), from which dropout draws its streams.
  ImportContext(const ModelFile& file, ir::Graph& graph, uint64_t seed = 0);

  const std::string& path() const { return file_.path; }
  int64_t opset() const { return file_.opset; }
  uint64_t seed() const { return seed_; }
  const onnx::GraphProto& onnx_graph() const { return file_.model.graph(); }
  ir::Graph& graph() { return graph_; }

  // ONNX value name -> IR tensor. Binding a name twice is a UserError (a malformed graph).
  void bind(const std::string& value, ir::TensorId t);
  // Invalid when no node, initializer or input has defined the value (yet).
  ir::TensorId lookup(const std::string& value) const;

  // Values whose contents are known at import time: initializers and Constant outputs.
  void add_constant(const std::string& value, const onnx::TensorProto* t);
  const onnx::TensorProto* constant(const std::string& value) const;  // null if not one
  // A constant the import computed (a folded shape computation), owned by the context.
  void add_computed_constant(const std::string& value, onnx::TensorProto t);
  // The value as an integer constant when it is an INT64, INT32 or BOOL one, decoded once and
  // kept (a chain of folds reads each constant once, not once per reader); null otherwise.
  // `where` prefixes a decoding error.
  const IntConstant* int_constant(const std::string& value, const std::string& where);
  // Binds `value` to a folded integer constant (also readable as a TensorProto).
  void add_int_constant(const std::string& value, IntConstant c);
  // Counts `elements` more against kMaxComputedElements; false (nothing counted) when that
  // would exceed it.
  bool charge_computed(uint64_t elements);
  uint64_t computed_elements() const { return computed_elements_; }

  // True when some node or a graph output reads the value.
  bool consumed(const std::string& value) const { return consumed_.count(value) != 0; }

  // A zero Pad of H and W folded into its consumers (AveragePool, Conv): the value stands for
  // the unpadded tensor, and each consumer adds these [t,l,b,r] to its own padding.
  void set_folded_pads(const std::string& value, std::vector<int64_t> pads) {
    folded_pads_[value] = std::move(pads);
  }
  const std::vector<int64_t>* folded_pads(const std::string& value) const {
    const auto it = folded_pads_.find(value);
    return it == folded_pads_.end() ? nullptr : &it->second;
  }

  // Throws UserError "<path>: <problem>".
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  const ModelFile& file_;
  ir::Graph& graph_;
  uint64_t seed_;
  std::unordered_map<std::string, ir::TensorId> values_;
  std::unordered_map<std::string, const onnx::TensorProto*> constants_;
  std::deque<onnx::TensorProto> computed_;  // stable addresses for constants_
  std::unordered_map<std::string, std::unique_ptr<const IntConstant>> int_constants_;
  uint64_t computed_elements_ = 0;
  std::unordered_set<std::string> consumed_;
  std::unordered_map<std::string, std::vector<int64_t>> folded_pads_;
};

// One node being translated into IR ops. Inputs and outputs are positional, as in the ONNX
// operator schema; an optional one is absent when missing or named "".
class NodeContext {
 public:
  // `name` is the IR op name: the node's name, made unique in the graph.
  NodeContext(ImportContext& import, const onnx::NodeProto& node, std::string name);

  const onnx::NodeProto& node() const { return node_; }
  const std::string& name() const { return name_; }
  int64_t opset() const { return import_.opset(); }
  ImportContext& import() { return import_; }

  // Throws UserError "<path>: node '<name>' (<op type>): <problem>".
  [[noreturn]] void fail(const std::string& problem) const;

  bool has_input(size_t i) const;
  // The IR tensor of input i; UserError when it is absent or nothing defines it.
  ir::TensorId input(size_t i) const;
  const ir::Tensor& input_tensor(size_t i) const;
  // An integer input whose contents are known at import time (an INT64 initializer or
  // Constant), e.g. the target shape of Reshape.
  std::vector<int64_t> constant_ints(size_t i) const;
  // A FLOAT input known at import time (Clip's bounds, Dropout's ratio).
  std::vector<float> constant_floats(size_t i) const;
  // Input i when it is an INT64, INT32 or BOOL (0 and 1) constant (a shape, a value computed
  // from shapes, or a mask), else null. Owned by the import: valid until it ends.
  const IntConstant* int_constant(size_t i) const;
  // Binds output i (when the node has it) to an INT64 constant: a folded shape computation.
  // Fails when the import's constants would exceed kMaxComputedElements.
  void set_int_output(size_t i, IntConstant value);
  // Fails, naming the node, when `elements` more would take the import's constants past
  // kMaxComputedElements; counts them otherwise. Call before building a large constant.
  void charge_constant(uint64_t elements) const;
  // The dimensions of a FLOAT input known at import time (constant_floats' values).
  std::vector<int64_t> constant_dims(size_t i) const;

  // Fails on any attribute of the node not in `names`: an attribute the translator does
  // not read would be silently ignored otherwise.
  void allow_attributes(std::initializer_list<std::string_view> names) const;
  bool has_attr(const std::string& name) const { return find_attr(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback) const;
  std::string attr_string(const std::string& name, std::string fallback) const;
  // A TENSOR attribute (Constant's value); null when absent.
  const onnx::TensorProto* attr_tensor(const std::string& name) const;
  // fail("attribute '<name>' <problem>").
  [[noreturn]] void fail_attr(const std::string& name, const std::string& problem) const;

  bool has_output(size_t i) const;
  // Binds ONNX output i (when the node has it) to an IR tensor.
  void set_output(size_t i, ir::TensorId t);
  // Fails when output i exists and something reads it: the IR has no equivalent of it.
  void expect_unused_output(size_t i, const std::string& why) const;

  // Adds an IR op named name(); a shape-inference UserError from the IR comes through
  // prefixed with the file.
  std::vector<ir::TensorId> add_op(ir::OpType type, const std::vector<ir::TensorId>& inputs,
                                   const ir::Attrs& attrs);
  ir::TensorId add(ir::OpType type, const std::vector<ir::TensorId>& inputs,
                   const ir::Attrs& attrs);

 private:
  const onnx::AttributeProto* find_attr(const std::string& name) const;
  const onnx::AttributeProto* typed_attr(const std::string& name,
                                         onnx::AttributeProto::AttributeType type,
                                         const char* kind) const;

  ImportContext& import_;
  const onnx::NodeProto& node_;
  std::string name_;
};

// ONNX stores float attributes as float32, so PyTorch's eps=1e-5 arrives as
// 9.99999974737875e-06. The IR holds doubles; to carry the value the user wrote, this returns
// the shortest decimal that rounds to the same float (1e-5 here).
double decimal_value(float v);

// How messages and op names call the node at `index`: its name, or "<op_type>_<index>" when
// it has none.
std::string node_display_name(const onnx::NodeProto& node, int index);

// "[1,2,3]" for messages.

}  // namespace s2::onnx_import
