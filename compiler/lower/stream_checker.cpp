#include "compiler/lower/stream_checker.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>

#include "compiler/interp/kernel.h"
#include "compiler/lower/op_lowering.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"

namespace s2::lower {
namespace {

std::string label(const isa::Executable& exe, size_t index) {
  std::string s = "instruction " + std::to_string(index) + " (" +
                  std::string(exe.instructions[index].info().mnemonic);
  if (index < exe.debug.size() && !exe.debug[index].empty())
    s += " of '" + exe.debug[index][0] + "'";
  return s + ")";
}

isa::DType slot_dtype(const isa::Instruction& inst, isa::Slot slot) {
  const auto& sig =
      inst.info().operands[static_cast<size_t>(isa::operand_index(inst.info(), slot))];
  return sig.dtype == isa::DTypeReq::I32 ? isa::DType::I32 : isa::DType::F32;
}

ir::Shape shape_of(const isa::TensorDesc& d) {
  ir::Shape s;
  for (uint32_t extent : d.dims())
    s.push_back(extent);
  return s;
}

// The attributes the registry's kernel reads: the schema's defaults, then the fields.
ir::Attrs kernel_attrs(const std::string& where, const isa::Instruction& inst,
                       const OpLowering& entry, const ir::OpSchema& schema) {
  ir::Attrs decoded;
  entry.decode(inst, decoded);
  ir::Attrs attrs;
  for (const ir::AttrSpec& spec : schema.attrs)
    if (spec.default_value) attrs.set(spec.name, *spec.default_value);
  for (const auto& [name, value] : decoded.values()) {
    bool declared = false;
    for (const ir::AttrSpec& spec : schema.attrs)
      declared = declared || spec.name == name;
    if (declared) {
      attrs.set(name, value);
    } else if (!(name == "act" && value == ir::AttrValue(std::string("none")))) {
      throw UserError(where + ": " + name + "=" + ir::attr_value_text(value) +
                      " has no counterpart in the registry's " +
                      std::string(ir::op_type_name(schema.type)) + "; no kernel computes it");
    }
  }
  for (const ir::AttrSpec& spec : schema.attrs)
    S2_CHECK(attrs.has(spec.name), where +
                                       ": the lowering table does not decode "
                                       "attribute '" +
                                       spec.name + "'");
  return attrs;
}

// One registry kernel run for one table entry that describes the instruction.
class KernelRun {
 public:
  KernelRun(const std::string& where, const isa::Instruction& inst, const OpLowering& entry,
            DramImage& image)
      : where_(where),
        inst_(inst),
        entry_(entry),
        schema_(ir::op_schema(entry.type)),
        image_(image) {}

  void run(const std::string& op_name) {
    op_.name = op_name;
    op_.type = entry_.type;
    op_.attrs = kernel_attrs(where_, inst_, entry_, schema_);
    numerics::KTiledGemm pe(numerics::kDefaultKTile);
    ir::KernelContext ctx{op_, {}, {}, pe};
    for (const ir::InputSpec& spec : schema_.inputs) {
      const SlotBinding* b = entry_.input(spec.name);
      S2_CHECK(b != nullptr || spec.optional,
               where_ + ": no operand binds required input '" + spec.name + "'");
      const ir::HostArray* a = b ? array_for(*b, !spec.optional, true) : nullptr;
      ir::KernelInput in;
      if (a != nullptr) {
        in.dtype = a->dtype();
        in.shape = shapes_.at(a);
        if (numerics::is_float_dtype(a->dtype()))
          in.f32 = a->f32().data();
        else
          in.i32 = a->i32().data();
      }
      ctx.in.push_back(in);
    }
    for (const std::string& name : schema_.outputs) {
      const SlotBinding* b = entry_.output(name);
      ir::HostArray* a = b ? array_for(*b, false, false) : nullptr;
      ir::KernelOutput out;
      if (a != nullptr) {
        out.dtype = a->dtype();
        out.shape = shapes_.at(a);
        if (numerics::is_float_dtype(a->dtype()))
          out.f32 = a->f32().data();
        else
          out.i32 = a->i32().data();
      }
      ctx.out.push_back(out);
    }
    ir::run_kernel(schema_.kernel, ctx);
    for (const auto& [slot, a] : written_)
      image_.write(inst_.get(slot), *a);
  }

 private:
  // The array behind an operand: gathered from the image for inputs (and shared with the
  // output bound to the same slot, for in-place updates), zeros for outputs; a zero scratch
  // array when the instruction omits the operand but the kernel needs one.
  ir::HostArray* array_for(const SlotBinding& b, bool required, bool input) {
    for (auto& [slot, a] : bound_)
      if (slot == b.slot) {
        if (!input) written_.emplace_back(b.slot, a);
        return a;
      }
    const auto& operand = inst_.operand(b.slot);
    if (!operand) {
      if (b.scratch_like != kNoSlot && inst_.operand(b.scratch_like))
        return scratch(slot_dtype(inst_, b.slot), shape_of(inst_.get(b.scratch_like)));
      if (required)
        throw UserError(where_ + ": operand '" + std::string(isa::slot_info(b.slot).name) +
                        "' is absent, but the registry's kernel needs it");
      return nullptr;
    }
    arrays_.push_back(
        input ? image_.read(*operand)
              : ir::HostArray(operand->dtype, static_cast<size_t>(operand->elements())));
    ir::HostArray* a = &arrays_.back();
    if (numerics::is_float_dtype(a->dtype()))  // values enter the datapath flushed
      for (float& v : a->f32())
        v = numerics::load(v);
    shapes_[a] = shape_of(*operand);
    bound_.emplace_back(b.slot, a);
    if (!input) written_.emplace_back(b.slot, a);
    return a;
  }

  ir::HostArray* scratch(isa::DType dtype, const ir::Shape& shape) {
    arrays_.emplace_back(dtype, static_cast<size_t>(ir::shape_numel(shape)));
    shapes_[&arrays_.back()] = shape;
    return &arrays_.back();
  }

  const std::string& where_;
  const isa::Instruction& inst_;
  const OpLowering& entry_;
  const ir::OpSchema& schema_;
  DramImage& image_;
  ir::Op op_;
  std::deque<ir::HostArray> arrays_;  // stable addresses while the kernel runs
  std::map<const ir::HostArray*, ir::Shape> shapes_;
  std::vector<std::pair<isa::Slot, ir::HostArray*>> bound_;
  std::vector<std::pair<isa::Slot, ir::HostArray*>> written_;
};

// Every present operand must mean something to one of the kernels, or the check would
// silently skip part of what the hardware computes.
void check_operands_used(const std::string& where, const isa::Instruction& inst,
                         const std::vector<const OpLowering*>& entries) {
  std::set<isa::Slot> used;
  for (const OpLowering* e : entries) {
    const ir::OpSchema& schema = ir::op_schema(e->type);
    for (const ir::InputSpec& spec : schema.inputs)
      if (const SlotBinding* b = e->input(spec.name)) used.insert(b->slot);
    for (const std::string& name : schema.outputs)
      if (const SlotBinding* b = e->output(name)) used.insert(b->slot);
  }
  for (const isa::OperandSig& sig : inst.info().operands)
    if (inst.operand(sig.slot) && used.count(sig.slot) == 0)
      throw UserError(where + ": operand '" + std::string(isa::slot_info(sig.slot).name) +
                      "' has no counterpart in the registry's kernels; they cannot check it");
}

}  // namespace

void execute_instruction(const isa::Executable& exe, size_t index, DramImage& image) {
  const isa::Instruction& inst = exe.instructions.at(index);
  const std::string where = label(exe, index);
  switch (inst.opcode()) {
    case isa::Opcode::End:
    case isa::Opcode::Barrier:
      return;  // program order already waits for everything
    case isa::Opcode::Copy:
      image.write(inst.get(isa::Slot::Dst), image.read(inst.get(isa::Slot::Src)));
      return;
    case isa::Opcode::Fill: {
      const isa::TensorDesc& dst = inst.get(isa::Slot::Dst);
      const float value = inst.f32(isa::Field::Value);
      ir::HostArray fill(dst.dtype, static_cast<size_t>(dst.elements()));
      if (dst.dtype == isa::DType::F32) std::fill(fill.f32().begin(), fill.f32().end(), value);
      if (dst.dtype == isa::DType::I32)
        std::fill(fill.i32().begin(), fill.i32().end(), static_cast<int32_t>(value));
      if (dst.dtype == isa::DType::U8)
        std::fill(fill.u8().begin(), fill.u8().end(), static_cast<uint8_t>(value));
      image.write(dst, fill);
      return;
    }
    default:
      break;
  }
  const std::vector<const OpLowering*> entries = lowerings_of(inst);
  if (entries.empty())
    throw UserError(where +
                    ": no reference kernel of the op registry computes this "
                    "instruction (the stream checker covers what s2c emits)");
  check_operands_used(where, inst, entries);
  const std::string op_name =
      index < exe.debug.size() && !exe.debug[index].empty() ? exe.debug[index][0] : where;
  for (const OpLowering* entry : entries)
    KernelRun(where, inst, *entry, image).run(op_name);
}

DramImage execute_stream(const isa::Executable& exe) {
  DramImage image = DramImage::load(exe);
  for (size_t i = 0; i < exe.instructions.size(); ++i)
    execute_instruction(exe, i, image);
  return image;
}

}  // namespace s2::lower
