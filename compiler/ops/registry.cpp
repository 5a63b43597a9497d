#include "compiler/ops/registry.h"

#include "isa/common/errors.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {

const char* fusion_class_name(FusionClass fusion) {
  switch (fusion) {
    case FusionClass::Pe:
      return "pe";
    case FusionClass::Ppu:
      return "ppu";
    case FusionClass::Dma:
      return "dma";
    case FusionClass::View:
      return "view";
  }
  return "?";
}

std::string_view op_type_name(OpType type) {
  switch (type) {
#define S2_OP(Id, name, file) \
  case OpType::Id:            \
    return name;
#include "compiler/ops/op_types.def"
    case OpType::kCount:
      break;
  }
  return "?";
}

std::optional<OpType> op_type_from_name(std::string_view text) {
#define S2_OP(Id, name, file) \
  if (text == (name)) return OpType::Id;
#include "compiler/ops/op_types.def"
  return std::nullopt;
}

bool InferContext::has_input(size_t i) const {
  return i < op_.inputs.size() && op_.inputs[i].valid();
}

const Tensor& InferContext::input(size_t i) const {
  S2_CHECK(has_input(i), "op '" + op_.name + "': input " + std::to_string(i) + " is absent");
  return graph_.tensor(op_.inputs[i]);
}

isa::MemSpace InferContext::space(size_t i) const {
  return graph_.data(input(i).data).space;
}

std::string InferContext::describe(size_t i) const {
  const Tensor& t = input(i);
  return "input '" + input_spec(op_schema(op_.type), i).name + "' " + shape_text(t.dtype, t.shape);
}

void InferContext::fail(const std::string& problem) const {
  throw UserError("shape inference: op '" + op_.name + "' (" + std::string(op_type_name(op_.type)) +
                  "): " + problem);
}

void InferContext::expect_rank(size_t i, size_t rank) const {
  const Tensor& t = input(i);
  if (t.shape.size() != rank)
    fail("input '" + input_spec(op_schema(op_.type), i).name + "' " + shape_text(t.dtype, t.shape) +
         " must have rank " + std::to_string(rank));
}

void InferContext::expect_dtype(size_t i, DType dtype) const {
  const Tensor& t = input(i);
  if (t.dtype != dtype)
    fail("input '" + input_spec(op_schema(op_.type), i).name + "' " + shape_text(t.dtype, t.shape) +
         " must have element type " + std::string(isa::dtype_name(dtype)));
}

OutputSpec InferContext::in_place(size_t i) const {
  const Tensor& t = input(i);
  if (!t.contiguous()) fail(describe(i) + " is updated in place and must be a dense view");
  OutputSpec o;
  o.dtype = t.dtype;
  o.shape = t.shape;
  o.alias_input = static_cast<int>(i);
  o.strides = t.strides;
  o.offset = t.offset;
  return o;
}

void InferContext::expect_float(size_t i) const {
  const Tensor& t = input(i);
  if (!numerics::is_float_dtype(t.dtype))
    fail("input '" + input_spec(op_schema(op_.type), i).name + "' " + shape_text(t.dtype, t.shape) +
         " must have a float element type (f32, bf16 or f16)");
}

void InferContext::expect_same_dtype(size_t i, size_t j) const {
  if (input(i).dtype != input(j).dtype)
    fail(describe(i) + " and " + describe(j) +
         " are multiplied on the PE array and must have the same element type");
}

DType InferContext::result_dtype() const {
  if (op_.category == OpCategory::WeightGrad || op_.category == OpCategory::WeightUpdate)
    return DType::F32;
  for (TensorId in : op_.inputs)
    if (in.valid() && numerics::is_float_dtype(graph_.tensor(in).dtype) &&
        graph_.tensor(in).dtype != DType::F32)
      return graph_.tensor(in).dtype;
  return DType::F32;
}

void InferContext::expect_shape(size_t i, const Shape& shape) const {
  const Tensor& t = input(i);
  if (t.shape != shape)
    fail("input '" + input_spec(op_schema(op_.type), i).name + "' is " +
         shape_text(t.dtype, t.shape) + ", expected " + shape_text(t.dtype, shape));
}

const InputSpec& input_spec(const OpSchema& schema, size_t i) {
  S2_CHECK(!schema.inputs.empty(),
           "op type '" + std::string(op_type_name(schema.type)) + "' has no inputs");
  if (i >= schema.inputs.size() && schema.inputs.back().variadic) return schema.inputs.back();
  return schema.inputs.at(i);
}

bool input_count_fits(const OpSchema& schema, size_t count) {
  const bool variadic = !schema.inputs.empty() && schema.inputs.back().variadic;
  return variadic ? count >= schema.inputs.size() : count == schema.inputs.size();
}

namespace {

void add_schema(OpRegistry& r, OpSchema schema) {
  const std::string name(op_type_name(schema.type));
  for (size_t i = 0; i + 1 < schema.inputs.size(); ++i)
    S2_CHECK(!schema.inputs[i].variadic,
             "op type '" + name + "': only the last input may be variadic");
  const bool view = schema.fusion == FusionClass::View;
  S2_CHECK(schema.infer != nullptr, "op type '" + name + "' has no shape inference");
  S2_CHECK(schema.kernel != nullptr || view, "op type '" + name + "' has no kernel");
  S2_CHECK(schema.lowering.has_value() != view,
           "op type '" + name + (view ? "' is a view: it has no lowering" : "' has no lowering"));
  S2_CHECK(!schema.lowering || schema.lowering->type == schema.type,
           "op type '" + name + "' registered with the lowering of another type");
  r.add(name, std::move(schema));
}

}  // namespace

void add_op(OpRegistry& r, OpSchema schema, lower::OpLowering lowering) {
  schema.lowering = std::move(lowering);
  add_schema(r, std::move(schema));
}

void add_op(OpRegistry& r, OpSchema view) {
  add_schema(r, std::move(view));
}

const OpRegistry& op_registry() {
  static const OpRegistry registry = [] {
    OpRegistry r("op type");
    register_conv_ops(r);
    register_gemm_ops(r);
    register_batch_norm_ops(r);
    register_layer_norm_ops(r);
    register_embedding_ops(r);
    register_softmax_ops(r);
    register_attention_ops(r);
    register_eltwise_ops(r);
    register_activation_ops(r);
    register_dropout_ops(r);
    register_pool_ops(r);
    register_reduce_ops(r);
    register_view_ops(r);
    register_concat_ops(r);
    register_loss_ops(r);
    register_optimizer_ops(r);
    register_cast_ops(r);
    register_amp_ops(r);
    for (size_t i = 0; i < kNumOpTypes; ++i) {
      const std::string_view name = op_type_name(static_cast<OpType>(i));
      S2_CHECK(r.contains(name), "op type '" + std::string(name) +
                                     "' has no schema; register it in its file of op_types.def");
    }
    return r;
  }();
  return registry;
}

const OpSchema& op_schema(OpType type) {
  const OpSchema* s = op_registry().find(op_type_name(type));
  S2_CHECK(s != nullptr, "op type '" + std::string(op_type_name(type)) + "' has no schema");
  return *s;
}

}  // namespace s2::ir
