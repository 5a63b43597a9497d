#pragma once
// The Graph-IR: a DAG of three kinds of node (S2Train compiler design).
//
//   Data    - a buffer: element type, element count, role (weight, activation, gradient, ...),
//             and for weights, inputs and constants its initial contents.
//   Tensor  - a view of a data node: shape, strides and offset in elements, with the same
//             meaning as in PyTorch and NumPy. It holds no numbers. Transpose, slice and
//             reshape make new tensors on the same data; one data node can back several
//             tensors, and one tensor can feed several operators.
//   Op      - an operator of a registered type (ops/op_types.def) with attributes, input and
//             output tensors, and a category: forward, activation gradient, weight gradient,
//             or weight update.
//
// Every tensor is produced by at most one op (parameters and inputs by none). An op output
// may alias an input's data: views (metadata only) and in-place updates (sgd writes the new
// weight into the old weight's data). topo_order() orders every reader of a data node before
// an in-place write to it.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ir/host_array.h"
#include "compiler/ir/ids.h"
#include "compiler/ops/op_type.h"
#include "isa/container/executable.h"

namespace s2::ir {

using isa::DType;
using isa::TensorRole;
using Shape = std::vector<int64_t>;

struct Data {
  std::string name;
  DType dtype = DType::F32;
  int64_t numel = 0;
  TensorRole role = TensorRole::Scratch;
  bool constant = false;                  // contents known at compile time and never written
  std::shared_ptr<const HostArray> init;  // initial contents, or null
  // Where the buffer lives: DRAM, or host memory behind the target's host link (the slot a
  // tensor is swapped out to: the output of a `copy` with host=1). Only copies read or write
  // host data (the ISA lets no other instruction reach it).
  isa::MemSpace space = isa::MemSpace::Dram;
};

struct Tensor {
  std::string name;
  DataId data;
  DType dtype = DType::F32;
  Shape shape;
  Shape strides;       // in elements
  int64_t offset = 0;  // in elements, from the start of the data
  OpId producer;       // invalid for parameters and inputs

  int64_t numel() const;
  bool contiguous() const;
};

enum class OpCategory : uint8_t { Forward, ActivationGrad, WeightGrad, WeightUpdate };
const char* op_category_name(OpCategory category);
std::optional<OpCategory> op_category_from_name(std::string_view name);
// The role of the data node an op of `category` creates for a new (non-view) output.
TensorRole output_role(OpCategory category);

struct Op {
  std::string name;
  OpType type = OpType::Conv2d;
  OpCategory category = OpCategory::Forward;
  Attrs attrs;
  std::vector<TensorId> inputs;   // positional per the schema; invalid for an absent optional
  std::vector<TensorId> outputs;  // per the schema; invalid for an absent optional output
};

// Whether `outputs` (an op's, per its schema) hold exactly one present tensor, the first: an
// op with one result, optional outputs (such as the epilogue's pre) absent.
bool single_result(const std::vector<TensorId>& outputs);

Shape contiguous_strides(const Shape& shape);
// The strides under which `shape` reads the same elements, in the same row-major order, as a
// tensor of `old_shape` and `old_strides` (PyTorch's Tensor.view rule): each run of old
// dimensions that are dense with respect to each other may be split and merged freely; none
// when the new shape would cross a gap (then the data needs a copy first). A dense input gives
// contiguous_strides(shape).
std::optional<Shape> view_strides(const Shape& old_shape, const Shape& old_strides,
                                  const Shape& shape);
// True when strides a and b of `shape` address the same elements: equal on every dimension of
// extent above 1 (the stride of an extent-1 dimension is never multiplied by a nonzero index,
// so a batch of 1 placed inside a wider buffer may carry the buffer's stride there).
bool same_strides(const Shape& shape, const Shape& a, const Shape& b);
int64_t shape_numel(const Shape& shape);
std::string shape_text(DType dtype, const Shape& shape);
// "[1,2,3]".
std::string ints_text(const std::vector<int64_t>& values);

class Graph {
 public:
  explicit Graph(std::string name = "graph") : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  // A data node with one contiguous tensor over it, produced by no op: a weight, an input
  // batch, labels, optimizer state or a constant.
  TensorId add_parameter(const std::string& name, TensorRole role, DType dtype, const Shape& shape,
                         std::shared_ptr<const HostArray> init = nullptr, bool constant = false);

  // Adds an op: fills attribute defaults from its schema, runs its shape inference and
  // creates its outputs (new data nodes, or views of an input's data). Returns the outputs.
  // Throws UserError naming the op when the inputs do not fit.
  std::vector<TensorId> add_op(OpType type, const std::string& name, OpCategory category,
                               const std::vector<TensorId>& inputs, const Attrs& attrs = {});
  // The single output of an op that has one.
  TensorId add(OpType type, const std::string& name, OpCategory category,
               const std::vector<TensorId>& inputs, const Attrs& attrs = {});

  // Low-level construction, for passes that copy nodes between graphs.
  DataId add_data(Data data);
  TensorId add_tensor(Tensor tensor);
  OpId add_op_node(Op op);

  const Data& data(DataId id) const { return datas_.at(id.index()); }
  const Tensor& tensor(TensorId id) const { return tensors_.at(id.index()); }
  const Op& op(OpId id) const { return ops_.at(id.index()); }
  Data& mutable_data(DataId id) { return datas_.at(id.index()); }
  Tensor& mutable_tensor(TensorId id) { return tensors_.at(id.index()); }
  Op& mutable_op(OpId id) { return ops_.at(id.index()); }
  size_t num_datas() const { return datas_.size(); }
  size_t num_tensors() const { return tensors_.size(); }
  size_t num_ops() const { return ops_.size(); }

  TensorId find_tensor(const std::string& name) const;
  OpId find_op(const std::string& name) const;
  // A name not used by any op, tensor or data node yet: `base`, or base_2, base_3, ...
  std::string unique_name(const std::string& base) const;

  // Tensors the step must produce (the loss, updated weights, ...): roots for dead-code
  // elimination, and what the interpreter reports.
  const std::vector<TensorId>& outputs() const { return outputs_; }
  void mark_output(TensorId t);
  void set_outputs(std::vector<TensorId> outputs) { outputs_ = std::move(outputs); }
  TensorId loss() const { return loss_; }
  void set_loss(TensorId t) { loss_ = t; }

  // Ops reading each tensor, indexed by tensor id.
  std::vector<std::vector<OpId>> consumers() const;
  // For each op, the ops that must run before it: the producers of its inputs and, for an
  // in-place write, every other reader of the data it overwrites. Schedulers order by these.
  std::vector<std::vector<OpId>> predecessors() const;
  // An order in which every op follows the producers of its inputs and every in-place
  // write follows the other readers of the data it overwrites. Internal error on a cycle.
  std::vector<OpId> topo_order() const;
  // True when the op overwrites one of its inputs: an output is the same view of the same data
  // (an in-place update). Writing another slice of an input's data (a placed concat part) is not.
  bool writes_in_place(const Op& op) const;
  // Whether output `out` of `op` is such an in-place update.
  bool overwrites_input(const Op& op, TensorId out) const;
  // True when the op has an effect beyond its outputs' values: an in-place write into data
  // that outlives the step (weights, optimizer and batch-norm state).
  bool has_side_effect(const Op& op) const;

 private:
  // Calls edge(from, to) (op indices, from != to) for each ordering edge of predecessors(),
  // repeats included: the producers of each op's inputs, then the in-place writes' waits.
  template <typename Edge>
  void for_each_order_edge(Edge&& edge) const;

  std::string name_;
  std::vector<Data> datas_;
  std::vector<Tensor> tensors_;
  std::vector<Op> ops_;
  std::vector<TensorId> outputs_;
  TensorId loss_;
  std::unordered_map<std::string, uint32_t> names_;  // every op, tensor and data name
  // unique_name(): per base, the smallest suffix not known to be taken (a cache, hence
  // mutable; a Graph is built by one thread at a time).
  mutable std::unordered_map<std::string, int> suffix_floor_;
};

}  // namespace s2::ir
