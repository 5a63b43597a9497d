#include "compiler/passes/autocast.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/encoding/isa_table.h"
#include "isa/encoding/semantics.h"
#include "isa/numerics/amp.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {
namespace {

// Whether op input i is an operand the hardware multiplies on the PE array.
bool is_multiplicand(const Op& op, size_t i) {
  const OpSchema& schema = op_schema(op.type);
  if (!schema.lowering || isa::opcode_info(schema.lowering->opcode).unit != isa::Unit::Pe)
    return false;
  const lower::SlotBinding* binding = schema.lowering->input(input_spec(schema, i).name);
  return binding != nullptr && std::find(isa::kMultiplicands.begin(), isa::kMultiplicands.end(),
                                         binding->slot) != isa::kMultiplicands.end();
}

class Autocast {
 public:
  Autocast(const Graph& in, DType low) : g_(in), low_(low), suffix_(isa::dtype_name(low)) {}

  PassResult run(const std::optional<LossScaling>& scaling) {
    PassResult result;
    const size_t inputs = store_batch_low();
    const std::vector<OpId> order = g_.topo_order();
    for (OpId id : order)
      retype(id);
    result.summary = std::string(precision_name(low_)) + ": " + std::to_string(inputs) +
                     " inputs, " + std::to_string(copies_.size()) + " weight copies, " +
                     std::to_string(casts_) + " casts";
    if (scaling) result.summary += scale_loss(*scaling);
    result.changed = true;
    result.graph = std::move(g_);
    return result;
  }

 private:
  bool is_float32(TensorId t) const { return g_.tensor(t).dtype == DType::F32; }

  std::string fresh_name(const std::string& base) const {
    return g_.unique_name(base + "." + suffix_);
  }

  // The batch: every f32 parameter of role input, stored rounded to the 16-bit type.
  size_t store_batch_low() {
    size_t count = 0;
    for (size_t i = 0; i < g_.num_datas(); ++i) {
      Data& d = g_.mutable_data(DataId(i));
      if (d.role != TensorRole::Input || d.dtype != DType::F32) continue;
      d.dtype = low_;
      if (d.init) d.init = rounded(*d.init);
      ++count;
    }
    for (size_t i = 0; i < g_.num_tensors(); ++i) {
      Tensor& t = g_.mutable_tensor(TensorId(i));
      if (!t.producer.valid() && g_.data(t.data).dtype != t.dtype) t.dtype = g_.data(t.data).dtype;
    }
    return count;
  }

  std::shared_ptr<const HostArray> rounded(const HostArray& values) const {
    std::vector<float> v(values.f32().begin(), values.f32().end());
    for (float& x : v)
      x = numerics::round_to(low_, x);
    return std::make_shared<const HostArray>(std::move(v), low_);
  }

  // The weight parameter `t` is a view of (through view ops), or an invalid id.
  TensorId weight_under(TensorId t) const {
    while (g_.tensor(t).producer.valid()) {
      const Op& p = g_.op(g_.tensor(t).producer);
      if (op_schema(p.type).fusion != FusionClass::View) return TensorId();
      t = p.inputs.at(0);
    }
    return g_.data(g_.tensor(t).data).role == TensorRole::Weight ? t : TensorId();
  }

  // The 16-bit copy of weight parameter w (created on first use), or the same views of it as
  // `t` is of w.
  TensorId low_view(TensorId t) {
    if (const auto it = low_of_.find(t.value); it != low_of_.end()) return it->second;
    TensorId low;
    const Tensor tensor = g_.tensor(t);  // a copy: adding tensors moves the storage
    if (!tensor.producer.valid()) {
      const Data& d = g_.data(tensor.data);
      low = g_.add_parameter(fresh_name(d.name), TensorRole::State, low_, tensor.shape,
                             d.init ? rounded(*d.init) : nullptr);
      copies_[tensor.data.value] = low;
    } else {
      const Op view = g_.op(tensor.producer);
      std::vector<TensorId> inputs = view.inputs;
      inputs.at(0) = low_view(view.inputs.at(0));
      low = g_.add(view.type, fresh_name(view.name), view.category, inputs, view.attrs);
    }
    low_of_[t.value] = low;
    return low;
  }

  // `t` in the 16-bit type for a consumer that needs it so: the weight's copy, or a cast.
  TensorId low_operand(TensorId t) {
    if (!is_float32(t)) return t;
    if (weight_under(t).valid()) return low_view(t);
    if (const auto it = low_of_.find(t.value); it != low_of_.end()) return it->second;
    const Tensor tensor = g_.tensor(t);
    const OpCategory category =
        tensor.producer.valid() ? g_.op(tensor.producer).category : OpCategory::Forward;
    const TensorId cast = g_.add(OpType::Cast, fresh_name(tensor.name), category, {t},
                                 Attrs{{"dtype", std::string(suffix_)}});
    ++casts_;
    low_of_[t.value] = cast;
    return cast;
  }

  // Inputs that must be 16-bit, then the op's results retyped by shape inference.
  void retype(OpId id) {
    Op op = g_.op(id);  // a copy: adding ops and tensors moves the storage
    const OpSchema& schema = op_schema(op.type);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (!op.inputs[i].valid() || !numerics::is_float_dtype(g_.tensor(op.inputs[i]).dtype))
        continue;
      if (is_multiplicand(op, i) || (op.type == OpType::Embedding && i == 0))
        op.inputs[i] = low_operand(op.inputs[i]);
    }
    if (op.type == OpType::Concat) {  // a DMA copy moves bytes: its parts share one type
      const bool mixed = std::any_of(op.inputs.begin(), op.inputs.end(),
                                     [&](TensorId t) { return !is_float32(t); });
      if (mixed)
        for (TensorId& t : op.inputs)
          t = low_operand(t);
    }
    if (op.type == OpType::Sgd || op.type == OpType::AdamW) {
      const auto copy = copies_.find(g_.tensor(op.inputs.at(0)).data.value);
      if (copy != copies_.end()) {
        op.inputs.resize(schema.inputs.size());
        op.inputs.at(input_index(schema, "weight_copy")) = copy->second;
      }
    }
    const std::vector<OutputSpec> specs = schema.infer(InferContext(g_, op));
    for (size_t k = 0; k < specs.size(); ++k) {
      const OutputSpec& spec = specs[k];
      if (spec.absent) continue;
      if (!op.outputs.at(k).valid()) {  // weight_copy_out, new with the copy
        S2_CHECK(spec.alias_input >= 0, "autocast: a new output of '" + op.name + "' must alias");
        const Tensor& source = g_.tensor(op.inputs.at(static_cast<size_t>(spec.alias_input)));
        Tensor t{g_.unique_name(op.name + "." + schema.outputs[k]),
                 source.data,
                 spec.dtype,
                 spec.shape,
                 spec.strides.empty() ? contiguous_strides(spec.shape) : spec.strides,
                 spec.offset,
                 id};
        op.outputs[k] = g_.add_tensor(std::move(t));
        continue;
      }
      Tensor& t = g_.mutable_tensor(op.outputs[k]);
      t.dtype = spec.dtype;
      if (spec.alias_input < 0) g_.mutable_data(t.data).dtype = spec.dtype;
    }
    g_.mutable_op(id) = std::move(op);
  }

  static size_t input_index(const OpSchema& schema, const std::string& name) {
    for (size_t i = 0; i < schema.inputs.size(); ++i)
      if (schema.inputs[i].name == name) return i;
    throw InternalError("autocast: op type '" + std::string(op_type_name(schema.type)) +
                        "' has no input '" + name + "'");
  }

  TensorId scalar_state(const std::string& name, HostArray init) {
    const DType dtype = init.dtype();
    return g_.add_parameter(g_.unique_name(name), TensorRole::State, dtype, {1},
                            std::make_shared<const HostArray>(std::move(init)));
  }

  // Gradient clipping (--clip-grad-norm) under loss scaling takes the norm of the unscaled
  // gradients, as PyTorch's scaler.unscale_() before clip_grad_norm_: each gradient's sum of
  // squares is multiplied by inv_scale^2 before clip_grad_norm gathers them. The scale is a
  // power of two, so that is exactly the sum of squares of the unscaled gradients (barring
  // overflow, when the step is skipped anyway). Returns clip_grad_norm's factor, which the
  // updates then take times inv_scale; an invalid id when the step does not clip.
  TensorId unscale_clipping(TensorId inv) {
    OpId clip_op;
    for (size_t i = 0; i < g_.num_ops(); ++i)
      if (g_.op(OpId(i)).type == OpType::ClipScale) clip_op = OpId(i);
    if (!clip_op.valid()) return TensorId();
    const TensorId inv_sq = g_.add(OpType::Mul, g_.unique_name("amp.inv_scale_sq"),
                                   OpCategory::WeightUpdate, {inv, inv});
    auto unscaled = [&](TensorId sumsq) {
      return g_.add(OpType::Mul, g_.unique_name("amp.unscaled." + g_.tensor(sumsq).name),
                    OpCategory::WeightUpdate, {sumsq, inv_sq});
    };
    // clip_grad_norm reads one gradient's sum of squares, or their concat.
    const TensorId gathered = g_.op(clip_op).inputs.at(0);
    const OpId concat = g_.tensor(gathered).producer;
    if (concat.valid() && g_.op(concat).type == OpType::Concat) {
      const std::vector<TensorId> parts = g_.op(concat).inputs;
      std::vector<TensorId> scaled;
      for (TensorId part : parts)
        scaled.push_back(unscaled(part));
      g_.mutable_op(concat).inputs = scaled;
    } else {
      g_.mutable_op(clip_op).inputs.at(0) = unscaled(gathered);
    }
    return g_.op(clip_op).outputs.at(0);
  }

  // Dynamic loss scaling (LossScaling): the state, the scaled seeds, the checks, the updates'
  // unscaling and skipping, and amp_update. Returns the summary's part.
  std::string scale_loss(const LossScaling& s) {
    const float init = static_cast<float>(s.init_scale);
    const TensorId scale = scalar_state("amp.loss_scale", HostArray(std::vector<float>{init}));
    const TensorId tracker = scalar_state("amp.growth_tracker", HostArray(std::vector<int32_t>{0}));
    const TensorId inv =
        scalar_state("amp.inv_scale", HostArray(std::vector<float>{numerics::amp_inv_scale(init)}));
    // The seeds: each loss gradient's dloss (1 when absent) times the scale.
    std::vector<OpId> seeds, updates;
    for (size_t i = 0; i < g_.num_ops(); ++i) {
      const Op& op = g_.op(OpId(i));
      if (op.type == OpType::SoftmaxCeBwd) seeds.push_back(OpId(i));
      if (op.type == OpType::Sgd || op.type == OpType::AdamW) updates.push_back(OpId(i));
    }
    for (OpId id : seeds) {
      const Op op = g_.op(id);
      TensorId dloss = scale;
      if (op.inputs.size() > 2 && op.inputs[2].valid())
        dloss = g_.add(OpType::Mul, g_.unique_name(op.name + ".scaled_dloss"), op.category,
                       {op.inputs[2], scale});
      Op& mut = g_.mutable_op(id);
      mut.inputs.resize(std::max<size_t>(mut.inputs.size(), 3));
      mut.inputs[2] = dloss;
    }
    // found_inf: the sum of one flag per gradient an update reads.
    std::vector<TensorId> flags;
    for (OpId id : updates) {
      const Op op = g_.op(id);
      flags.push_back(g_.add(OpType::AmpCheck, g_.unique_name(op.name + ".amp_check"),
                             OpCategory::WeightUpdate, {op.inputs.at(1)}));
    }
    if (flags.empty()) return "; no updates to scale the loss for";
    TensorId found = flags[0];
    if (flags.size() > 1) {
      const TensorId all = g_.add(OpType::Concat, g_.unique_name("amp.flags"),
                                  OpCategory::WeightUpdate, flags, Attrs{{"axis", int64_t{0}}});
      found = g_.add(OpType::ReduceSum, g_.unique_name("amp.found_inf"), OpCategory::WeightUpdate,
                     {all}, Attrs{{"axes", std::vector<int64_t>{0}}});
    }
    const TensorId clip = unscale_clipping(inv);
    const TensorId grad_scale = clip.valid()
                                    ? g_.add(OpType::Mul, g_.unique_name("amp.clip_grad_scale"),
                                             OpCategory::WeightUpdate, {inv, clip})
                                    : inv;
    for (OpId id : updates) {
      const OpSchema& schema = op_schema(g_.op(id).type);
      Op& op = g_.mutable_op(id);
      op.inputs.resize(schema.inputs.size());
      op.inputs.at(input_index(schema, "grad_scale")) = grad_scale;
      op.inputs.at(input_index(schema, "found_inf")) = found;
    }
    const std::vector<TensorId> outs =
        g_.add_op(OpType::AmpUpdate, g_.unique_name("amp.update"), OpCategory::WeightUpdate,
                  {found, scale, tracker, inv},
                  Attrs{{"growth_factor", s.growth_factor},
                        {"backoff_factor", s.backoff_factor},
                        {"growth_interval", s.growth_interval}});
    g_.mark_output(outs[0]);
    return "; loss scaling from " + attr_value_text(AttrValue(s.init_scale)) + " over " +
           std::to_string(flags.size()) + " gradients";
  }

  Graph g_;
  DType low_;
  std::string suffix_;
  std::map<uint32_t, TensorId> copies_;  // weight data id -> its 16-bit copy
  std::map<uint32_t, TensorId> low_of_;  // tensor id -> its 16-bit version
  size_t casts_ = 0;
};

// Drops amp_update (its in-place results become the state it would have updated), the
// updates' found_inf and grad_scale = inv_scale inputs, and clipping's unscaling (the sums of
// squares and the clip factor are used as they are).
class DropLossScaling : public GraphRewriter {
 protected:
  std::optional<std::vector<TensorId>> rewrite(const Op& op, Context& ctx) override {
    if (op.type == OpType::Mul) {
      const std::string& name = ctx.old_graph().tensor(op.outputs.at(0)).name;
      if (name.rfind("amp.unscaled.", 0) == 0 || name.rfind("amp.inv_scale_sq", 0) == 0)
        return std::vector<TensorId>{ctx.map(op.inputs.at(0))};
      if (name.rfind("amp.clip_grad_scale", 0) == 0)
        return std::vector<TensorId>{ctx.map(op.inputs.at(1))};
    }
    if (op.type == OpType::AmpUpdate) {
      std::vector<TensorId> kept;
      for (size_t k = 0; k < op.outputs.size(); ++k)
        kept.push_back(op.outputs[k].valid() ? ctx.map(op.inputs.at(k + 1)) : TensorId());
      return kept;
    }
    if (op.type != OpType::Sgd && op.type != OpType::AdamW) return std::nullopt;
    const OpSchema& schema = op_schema(op.type);
    std::vector<TensorId> inputs;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const std::string& name = input_spec(schema, i).name;
      const bool scaling =
          name == "found_inf" ||
          (name == "grad_scale" && op.inputs[i].valid() &&
           ctx.old_graph().tensor(op.inputs[i]).name.rfind("amp.inv_scale", 0) == 0);
      inputs.push_back(scaling ? TensorId() : ctx.map(op.inputs[i]));
    }
    return ctx.emit(op.type, op.name, op.category, inputs, op.attrs);
  }
};

}  // namespace

Graph without_loss_scaling(const Graph& graph) {
  bool scaled = false;
  for (size_t i = 0; i < graph.num_ops(); ++i)
    scaled = scaled || graph.op(OpId(i)).type == OpType::AmpUpdate;
  if (!scaled) return graph;
  PassResult r = DropLossScaling().run(graph);
  return std::move(r.graph);
}

std::optional<DType> precision_from_name(std::string_view name) {
  if (name == "fp32") return DType::F32;
  if (name == "bf16") return DType::BF16;
  if (name == "fp16") return DType::F16;
  return std::nullopt;
}

const char* precision_name(DType dtype) {
  switch (dtype) {
    case DType::BF16:
      return "bf16";
    case DType::F16:
      return "fp16";
    default:
      return "fp32";
  }
}

PassResult autocast(const Graph& graph, DType low, const std::optional<LossScaling>& scaling) {
  if (low == DType::F32) return PassResult{graph, false, "fp32 (give --precision bf16|fp16)"};
  S2_CHECK(low == DType::BF16 || low == DType::F16,
           "autocast: " + std::string(isa::dtype_name(low)) + " is not a 16-bit float type");
  return Autocast(graph, low).run(scaling);
}

}  // namespace s2::ir
