#pragma once
// The op registry: everything the compiler knows about an operator type, in one place —
// its inputs, outputs and attributes, its fusion class, its shape inference, its backward
// rule and its reference-interpreter kernel (STYLE.md: "One op registry").
//
// Each ops/<family>.cpp defines the schemas of its types and registers them with add_op() in
// register_<family>_ops(); registry.cpp calls each of those once. Registering a type twice is
// an internal error, and so is an OpType of op_types.def left without a schema (checked when
// the registry is first built). docs/compiler.md, "Adding an op", lists every step.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/lower/op_lowering.h"
#include "isa/common/registry.h"

namespace s2::ir {

class BackwardContext;  // autodiff/backward_context.h
struct KernelContext;   // interp/kernel.h

// How the accelerator executes an op: on the PE array (with a PPU epilogue), on the PPU, by
// the DMA engines (copy), or not at all (a view changes tensor metadata only).
enum class FusionClass : uint8_t { Pe, Ppu, Dma, View };
const char* fusion_class_name(FusionClass fusion);

struct InputSpec {
  std::string name;
  bool optional = false;
  // The last input only: it repeats, one or more tensors (concat's parts). Op::inputs then
  // holds as many entries as the op has, not one per spec.
  bool variadic = false;
};

struct AttrSpec {
  std::string name;
  AttrKind kind;
  std::optional<AttrValue> default_value;  // nullopt: required
};

// What shape inference says about one output. By default the output gets a new contiguous
// data node. Its dtype is what the op writes: a data result (an operand the ISA types
// "Float") takes InferContext::result_dtype(), and a value the ISA keeps in f32 (statistics,
// the loss, norms) stays f32. With alias_input >= 0 it is a view of that input's data instead, with
// the given strides and offset (empty strides: contiguous); in-place updates alias with the input's
// own strides and offset. An absent output leaves an invalid TensorId in Op::outputs.
struct OutputSpec {
  bool absent = false;  // an optional output the op does not produce this time
  DType dtype = DType::F32;
  Shape shape;
  int alias_input = -1;
  Shape strides;
  int64_t offset = 0;
  isa::MemSpace space = isa::MemSpace::Dram;  // of a new data node (copy's host=1: host memory)
};

// What a shape-inference function sees; fail() throws a UserError naming the op.
class InferContext {
 public:
  InferContext(const Graph& graph, const Op& op) : graph_(graph), op_(op) {}

  const Op& op() const { return op_; }
  const Attrs& attrs() const { return op_.attrs; }
  bool has_input(size_t i) const;
  // The input tensor; an absent (optional) input is an internal error.
  const Tensor& input(size_t i) const;
  const Shape& shape(size_t i) const { return input(i).shape; }
  // The memory space of input i's data node.
  isa::MemSpace space(size_t i) const;
  // "input 'x' f32[1,3,8,8]": how shape errors name input i.
  std::string describe(size_t i) const;

  [[noreturn]] void fail(const std::string& problem) const;
  // Common checks, each failing with the input's name and shape.
  void expect_rank(size_t i, size_t rank) const;
  void expect_dtype(size_t i, DType dtype) const;
  // The spec of an output that updates input i in place (its dtype, shape, strides and offset);
  // fails unless input i is a dense view.
  OutputSpec in_place(size_t i) const;
  // A data operand: f32, bf16 or f16 (the op reads it as f32 and computes in f32).
  void expect_float(size_t i) const;
  // PE multiplicands: the same float type, the array's multiply mode.
  void expect_same_dtype(size_t i, size_t j) const;
  // The element type of the op's data results (docs/compiler.md, "Precision"): f32 for a
  // weight-gradient or weight-update op, whose results meet the f32 master weights;
  // otherwise the 16-bit float type of its first 16-bit float input, or f32 when it has none.
  // Rounding to it happens where the hardware writes the result.
  DType result_dtype() const;
  void expect_shape(size_t i, const Shape& shape) const;

 private:
  const Graph& graph_;
  const Op& op_;
};

using InferFn = std::vector<OutputSpec> (*)(const InferContext&);
using BackwardFn = void (*)(BackwardContext&);
using KernelFn = void (*)(KernelContext&);

struct OpSchema {
  OpType type;
  FusionClass fusion;
  std::vector<InputSpec> inputs;
  std::vector<std::string> outputs;
  std::vector<AttrSpec> attrs;
  InferFn infer = nullptr;
  BackwardFn backward = nullptr;  // null: autodiff fails loudly when a gradient must pass
  KernelFn kernel = nullptr;      // null only for views (nothing to compute)
  std::string doc;
  // How the op becomes one S2Train instruction and back (compiler/lower/op_lowering.h);
  // absent exactly for views, which produce no instruction.
  std::optional<lower::OpLowering> lowering = std::nullopt;
};

// The spec of an op's input i: a variadic last spec stands for every input from its index on.
const InputSpec& input_spec(const OpSchema& schema, size_t i);
// Whether `count` inputs fit the schema: exactly one per spec, or for a variadic last spec at
// least one per spec.
bool input_count_fits(const OpSchema& schema, size_t count);

// Op schemas by op type name (op_type_name()): the one generic registry.
using OpRegistry = Registry<OpSchema>;

// Registers `schema` with its lowering under its type's name; a view, which produces no
// instruction, is registered without one. Internal error for a type registered twice, a
// schema without shape inference, a non-view op without a kernel or a lowering, or a lowering
// of another type.
void add_op(OpRegistry& r, OpSchema schema, lower::OpLowering lowering);
void add_op(OpRegistry& r, OpSchema view);

// The registry with every op family registered; every OpType of op_types.def has a schema
// (checked when it is first built).
const OpRegistry& op_registry();
const OpSchema& op_schema(OpType type);

// Whether output k of `schema` is the epilogue's optional `pre` (ops/epilogue.h, keep_pre): it
// does not count when an op names its one result after itself, and the text form leaves it
// out when absent.
inline bool is_pre_output(const OpSchema& schema, size_t k) {
  return k < schema.outputs.size() && schema.outputs[k] == "pre";
}

// One per ops/<family>.cpp.
void register_conv_ops(OpRegistry& r);
void register_gemm_ops(OpRegistry& r);
void register_batch_norm_ops(OpRegistry& r);
void register_layer_norm_ops(OpRegistry& r);
void register_embedding_ops(OpRegistry& r);
void register_softmax_ops(OpRegistry& r);
void register_attention_ops(OpRegistry& r);
void register_eltwise_ops(OpRegistry& r);
void register_activation_ops(OpRegistry& r);
void register_dropout_ops(OpRegistry& r);
void register_pool_ops(OpRegistry& r);
void register_reduce_ops(OpRegistry& r);
void register_view_ops(OpRegistry& r);
void register_concat_ops(OpRegistry& r);
void register_loss_ops(OpRegistry& r);
void register_optimizer_ops(OpRegistry& r);
void register_cast_ops(OpRegistry& r);
void register_amp_ops(OpRegistry& r);

}  // namespace s2::ir
