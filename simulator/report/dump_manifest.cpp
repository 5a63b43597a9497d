#include "simulator/report/dump_manifest.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "isa/common/errors.h"
#include "isa/common/json.h"
#include "isa/io/npy.h"
#include "simulator/checker/operand_access.h"
#include "simulator/checker/tensor_attribution.h"

namespace s2::sim::report {
namespace {

using isa::Field;
using isa::Opcode;
using isa::Slot;

// The tensor-table entries an executable's operands stand for, attributed as the checker
// attributes them (simulator/checker/tensor_attribution.h), on its address line of DRAM and
// host memory (checker/operand_access.h).
class Operands {
 public:
  explicit Operands(const isa::Executable& exe)
      : exe_(exe),
        spaces_{exe.plan.dram_size, exe.plan.host_size},
        tensors_(checker::checked_tensors(exe.tensors, spaces_)),
        attribution_(tensors_) {}

  // The entry operand `slot` of instruction `index` is attributed to, or null (no operand, or
  // no live entry there). `written`: the instruction produces it.
  const isa::TensorEntry* tensor(uint32_t index, Slot slot, bool written) const {
    const std::optional<isa::TensorDesc>& desc = exe_.instructions[index].operand(slot);
    if (!desc) return nullptr;
    const uint64_t addr = desc->addr + spaces_.base(desc->space);
    const int64_t t =
        attribution_.attribute(addr, addr + desc->span_bytes(), index, written, false).primary;
    return t < 0 ? nullptr : &exe_.tensors[static_cast<size_t>(t)];
  }
  Json name(uint32_t index, Slot slot, bool written) const {
    const isa::TensorEntry* e = tensor(index, slot, written);
    return e == nullptr ? Json(nullptr) : Json(e->name);
  }

 private:
  const isa::Executable& exe_;
  checker::CheckedSpaces spaces_;
  std::vector<isa::TensorEntry> tensors_;
  checker::TensorAttribution attribution_;
};

std::string source_op(const isa::Executable& exe, uint32_t index) {
  return index < exe.debug.size() && !exe.debug[index].empty() ? exe.debug[index].front() : "";
}

// The forward activation `inst` applies to its result (an epilogue's act, or eltwise relu or
// act), or none; eltwise act_bwd carries the act of the forward it differentiates.
isa::Activation forward_activation(const isa::Instruction& inst) {
  if (inst.opcode() == Opcode::Eltwise) {
    const auto op = inst.as<isa::EltwiseOp>(Field::Op);
    if (op == isa::EltwiseOp::Relu) return isa::Activation::Relu;
    if (op != isa::EltwiseOp::Act) return isa::Activation::None;
  }
  return inst.has_field(Field::Act) ? inst.as<isa::Activation>(Field::Act) : isa::Activation::None;
}

// "name.mask" -> "name": the dropout layer a dropout_mask op belongs to (ir::add_dropout).
std::string dropout_layer(const std::string& op) {
  const std::string suffix = ".mask";
  if (op.size() > suffix.size() &&
      op.compare(op.size() - suffix.size(), suffix.size(), suffix) == 0)
    return op.substr(0, op.size() - suffix.size());
  return op;
}

Json sgd_updates(const isa::Executable& exe, const Operands& operands) {
  Json out = Json::array();
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() != Opcode::Sgd) continue;
    out.push_back({{"weight", operands.name(i, Slot::Weight, false)},
                   {"grad", operands.name(i, Slot::Grad, false)},
                   {"velocity", operands.name(i, Slot::Velocity, false)},
                   {"lr", inst.f32(Field::Lr)},
                   {"momentum", inst.f32(Field::Momentum)},
                   {"weight_decay", inst.f32(Field::WeightDecay)}});
  }
  return out;
}

Json adamw_updates(const isa::Executable& exe, const Operands& operands) {
  Json out = Json::array();
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() != Opcode::AdamW) continue;
    out.push_back({{"weight", operands.name(i, Slot::Weight, false)},
                   {"grad", operands.name(i, Slot::Grad, false)},
                   {"exp_avg", operands.name(i, Slot::ExpAvg, false)},
                   {"exp_avg_sq", operands.name(i, Slot::ExpAvgSq, false)},
                   {"step", operands.name(i, Slot::Step, false)},
                   {"lr", inst.f32(Field::Lr)},
                   {"beta1", 1.0 - static_cast<double>(inst.f32(Field::OneMinusBeta1))},
                   {"beta2", 1.0 - static_cast<double>(inst.f32(Field::OneMinusBeta2))},
                   {"eps", inst.f32(Field::AdamEps)},
                   {"weight_decay", inst.f32(Field::WeightDecay)}});
  }
  return out;
}

// The clip_scale instruction of gradient clipping, or null.
Json clip_grad_norm(const isa::Executable& exe, const Operands& operands) {
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() != Opcode::ClipScale) continue;
    return {{"max_norm", inst.f32(Field::MaxNorm)},
            {"sumsq", operands.name(i, Slot::SumSq, false)},
            {"scale", operands.name(i, Slot::GradScale, false)},
            {"total_norm", operands.name(i, Slot::TotalNorm, false)}};
  }
  return nullptr;
}

// The amp_update instruction of dynamic loss scaling, or null: its fields and the names of the
// scale, growth tracker and inverse scale (whose initial values are the step's first).
Json loss_scaling(const isa::Executable& exe, const Operands& operands) {
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() != Opcode::AmpUpdate) continue;
    return {{"growth_factor", inst.f32(Field::GrowthFactor)},
            {"backoff_factor", inst.f32(Field::BackoffFactor)},
            {"growth_interval", inst.u(Field::GrowthInterval)},
            {"found_inf", operands.name(i, Slot::FoundInf, false)},
            {"loss_scale", operands.name(i, Slot::LossScale, false)},
            {"growth_tracker", operands.name(i, Slot::GrowthTracker, false)},
            {"inv_scale", operands.name(i, Slot::InvScale, true)}};
  }
  return nullptr;
}

// The forward pass's decisions, in program order.
Json decisions(const isa::Executable& exe, const Operands& operands) {
  Json out = Json::array();
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    const isa::TensorEntry* tensor = nullptr;
    std::string op;
    const char* type = nullptr;
    if (inst.opcode() == Opcode::MaxPoolFwd) {
      tensor = operands.tensor(i, Slot::Idx, true);
      op = source_op(exe, i);
      type = "max_pool2d";
    } else if (inst.opcode() == Opcode::DropoutMask) {
      tensor = operands.tensor(i, Slot::Y, true);
      op = dropout_layer(source_op(exe, i));
      type = "dropout";
    } else if (const isa::Activation act = forward_activation(inst);
               act == isa::Activation::Relu || act == isa::Activation::Relu6) {
      // The ops whose backward depends on which side of a kink each element fell.
      tensor = operands.tensor(i, Slot::Y, true);
      if (tensor != nullptr) op = tensor->name;
      type = act == isa::Activation::Relu ? "relu" : "relu6";
    } else {
      continue;
    }
    Json view = nullptr;
    if (tensor != nullptr && (inst.opcode() != Opcode::MaxPoolFwd)) {
      // A result written into a slice of a larger buffer (a concat's): the entry is the
      // buffer, the decision its view, and the result's own name the instruction's last
      // debug name (compiler/lower/lower.cpp).
      const isa::TensorDesc& y = inst.get(Slot::Y);
      if (y.addr != tensor->addr || !y.is_contiguous() ||
          y.elements() * isa::dtype_bytes(y.dtype) != tensor->dense_bytes()) {
        Json shape = Json::array(), strides = Json::array();
        for (unsigned k = 0; k < y.rank; ++k) {
          shape.push_back(y.shape[k]);
          strides.push_back(y.strides[k]);
        }
        view = {{"offset", (y.addr - tensor->addr) / isa::dtype_bytes(y.dtype)},
                {"shape", shape},
                {"strides", strides}};
        if (inst.opcode() != Opcode::DropoutMask && i < exe.debug.size() && exe.debug[i].size() > 1)
          op = exe.debug[i].back();
      }
    }
    Json d = {{"op", op.empty() ? Json(nullptr) : Json(op)},
              {"type", type},
              {"tensor", tensor == nullptr ? Json(nullptr) : Json(tensor->name)},
              {"instruction", i}};
    if (!view.is_null()) d["view"] = view;
    if (inst.opcode() == Opcode::DropoutMask) {
      d["ratio"] = inst.f32(Field::Ratio);
      d["counter"] = operands.name(i, Slot::Counter, false);
    }
    out.push_back(std::move(d));
  }
  return out;
}

// The weight of a loss term: scale_a of the eltwise `scale` that reads it (the compiler's
// weighted auxiliary loss, compiler/onnx/onnx_import.cpp), else 1.
double term_weight(const isa::Executable& exe, const isa::TensorDesc& loss) {
  for (const isa::Instruction& inst : exe.instructions) {
    if (inst.opcode() != Opcode::Eltwise ||
        inst.as<isa::EltwiseOp>(isa::Field::Op) != isa::EltwiseOp::Scale)
      continue;
    const std::optional<isa::TensorDesc>& a = inst.operand(Slot::A);
    if (a && a->addr == loss.addr) return static_cast<double>(inst.f32(isa::Field::ScaleA));
  }
  return 1.0;
}

// The loss: the first softmax_ce's logits and labels, the step's loss tensor ("loss" when the
// compiler sums several terms) and every term with its logits and weight.
Json loss(const isa::Executable& exe, const Operands& operands) {
  Json terms = Json::array();
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() != Opcode::SoftmaxCe || !inst.operand(Slot::Loss)) continue;
    terms.push_back({{"logits", operands.name(i, Slot::Logits, false)},
                     {"labels", operands.name(i, Slot::Labels, false)},
                     {"loss", operands.name(i, Slot::Loss, true)},
                     {"weight", term_weight(exe, *inst.operand(Slot::Loss))}});
  }
  if (terms.empty()) return nullptr;
  Json total = terms[0]["loss"];
  if (terms.size() > 1) {
    total = nullptr;
    for (const isa::TensorEntry& e : exe.tensors)
      if (e.name == "loss") total = e.name;
  }
  return {{"logits", terms[0]["logits"]},
          {"labels", terms[0]["labels"]},
          {"loss", total},
          {"terms", terms}};
}

Json tensors(const isa::Executable& exe, const DumpRun& run) {
  std::vector<bool> dumped(exe.tensors.size(), false);
  for (size_t t : run.dumped)
    dumped.at(t) = true;
  Json out = Json::array();
  for (size_t t = 0; t < exe.tensors.size(); ++t) {
    const isa::TensorEntry& e = exe.tensors[t];
    const std::string file = npy::file_name(e.name);
    out.push_back({{"name", e.name},
                   {"role", isa::role_name(e.role)},
                   {"shape", e.shape},
                   {"dtype", isa::dtype_name(e.dtype)},
                   {"file_dtype", isa::dtype_name(npy::stored_dtype(e.dtype))},
                   {"file", dumped[t] ? Json(file) : Json(nullptr)},
                   {"initial", e.has_data() ? Json("initial/" + file) : Json(nullptr)}});
  }
  return out;
}

void write_initial_data(const std::string& dir, const isa::Executable& exe) {
  const std::filesystem::path initial = std::filesystem::path(dir) / "initial";
  std::error_code ec;
  std::filesystem::create_directories(initial, ec);
  if (ec) throw UserError(initial.string() + ": cannot create the directory: " + ec.message());
  for (const isa::TensorEntry& e : exe.tensors) {
    if (!e.has_data()) continue;
    // The reader validated that the data lies inside the data section.
    std::vector<uint8_t> bytes(static_cast<size_t>(e.dense_bytes()), 0);
    if (!e.zero_data())
      std::copy_n(exe.data.begin() + static_cast<std::ptrdiff_t>(e.data_offset), bytes.size(),
                  bytes.begin());
    npy::write((initial / npy::file_name(e.name)).string(), e.dtype,
               npy::Shape(e.shape.begin(), e.shape.end()), bytes);
  }
}

}  // namespace

void write_dump_manifest(const std::string& dir, const isa::Executable& exe, const DumpRun& run) {
  write_initial_data(dir, exe);
  const Operands operands(exe);
  const Json manifest = {{"format", kDumpManifestFormat},
                         {"executable", run.executable},
                         {"target", exe.target},
                         {"config", run.config},
                         {"steps", run.steps},
                         {"loss", run.loss ? Json(*run.loss) : Json(nullptr)},
                         {"softmax_ce", loss(exe, operands)},
                         {"sgd", sgd_updates(exe, operands)},
                         {"adamw", adamw_updates(exe, operands)},
                         {"clip_grad_norm", clip_grad_norm(exe, operands)},
                         {"loss_scaling", loss_scaling(exe, operands)},
                         {"decisions", decisions(exe, operands)},
                         {"tensors", tensors(exe, run)}};
  write_json_file((std::filesystem::path(dir) / "manifest.json").string(), manifest);
}

}  // namespace s2::sim::report
