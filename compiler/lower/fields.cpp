#include "compiler/lower/fields.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::lower {
namespace {

std::string field_label(const isa::Instruction& inst, isa::Field field) {
  return "field '" + std::string(isa::field_info(field).name) + "' of the S2Train '" +
         std::string(inst.info().mnemonic) + "' instruction";
}

}  // namespace

std::string op_label(const ir::Op& op) {
  return "op '" + op.name + "' (" + std::string(ir::op_type_name(op.type)) + ")";
}

void FieldWriter::fail(const std::string& problem) const {
  throw UserError(op_label(op_) + ": " + problem);
}

void FieldWriter::uint(isa::Field field, const std::string& attr, int64_t value) {
  const isa::FieldInfo& info = isa::field_info(field);
  const uint64_t limit = info.bits >= 32 ? uint64_t{UINT32_MAX} : (uint64_t{1} << info.bits) - 1;
  if (value < static_cast<int64_t>(info.min_value) || static_cast<uint64_t>(value) > limit)
    fail("attribute '" + attr + "' value " + std::to_string(value) + " does not fit the " +
         field_label(inst_, field) + " (" + std::to_string(info.min_value) + ".." +
         std::to_string(limit) + ")");
  inst_.set_raw(field, static_cast<uint32_t>(value));
}

void FieldWriter::ints(const std::string& attr, std::initializer_list<isa::Field> fields) {
  const std::vector<int64_t>& values = op_.attrs.ints(attr);
  if (values.size() != fields.size())
    fail("attribute '" + attr + "' " + ir::ints_text(values) + " has " +
         std::to_string(values.size()) + " entries, the instruction takes " +
         std::to_string(fields.size()));
  size_t i = 0;
  for (isa::Field f : fields)
    uint(f, attr, values[i++]);
}

void FieldWriter::i32(isa::Field field, const std::string& attr) {
  const int64_t v = op_.attrs.i(attr);
  if (v < INT32_MIN || v > INT32_MAX)
    fail("attribute '" + attr + "' value " + std::to_string(v) + " does not fit the " +
         field_label(inst_, field) + " (a signed 32-bit integer)");
  inst_.set_raw(field, static_cast<uint32_t>(static_cast<int32_t>(v)));
}

void FieldWriter::flag(isa::Field field, const std::string& attr) {
  const int64_t v = op_.attrs.i(attr);
  if (v != 0 && v != 1)
    fail("attribute '" + attr + "' must be 0 or 1 for the " + field_label(inst_, field) + ", not " +
         std::to_string(v));
  inst_.set_raw(field, static_cast<uint32_t>(v));
}

void FieldWriter::f32(isa::Field field, const std::string& attr) {
  const double v = op_.attrs.f(attr);
  // A finite value past the largest f32 has no f32 (the conversion is undefined); NaN and the
  // infinities carry over as they are.
  if (std::isfinite(v) && std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
    fail("attribute '" + attr + "' value " + ir::attr_value_text(ir::AttrValue(v)) +
         " does not fit the " + field_label(inst_, field) +
         " (an f32: at most 3.4e38 in magnitude)");
  inst_.set_f32(field, static_cast<float>(v));
}

void FieldWriter::enumerated(isa::Field field, const std::string& attr) {
  const std::string& name = op_.attrs.s(attr);
  const isa::FieldInfo& info = isa::field_info(field);
  std::string known;
  for (const isa::EnumValue& e : isa::enum_values(info.enum_set)) {
    if (e.name == name) {
      inst_.set_raw(field, e.value);
      return;
    }
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  fail("attribute '" + attr + "' is \"" + name + "\", the " + field_label(inst_, field) +
       " knows " + known);
}

void FieldWriter::act() {
  if (!op_.attrs.has("act")) return;
  if (inst_.has_field(isa::Field::Act)) {
    enumerated(isa::Field::Act, "act");
    return;
  }
  if (op_.attrs.s("act") != "none")
    fail("activation \"" + op_.attrs.s("act") + "\" cannot be applied: the S2Train '" +
         std::string(inst_.info().mnemonic) + "' instruction has no 'act' field");
}

std::vector<int64_t> field_ints(const isa::Instruction& inst,
                                std::initializer_list<isa::Field> fields) {
  std::vector<int64_t> values;
  for (isa::Field f : fields)
    values.push_back(inst.u(f));
  return values;
}

std::string field_enum_name(const isa::Instruction& inst, isa::Field field) {
  const uint32_t raw = inst.raw(field);
  for (const isa::EnumValue& e : isa::enum_values(isa::field_info(field).enum_set))
    if (e.value == raw) return std::string(e.name);
  throw UserError("S2Train '" + std::string(inst.info().mnemonic) + "': " +
                  field_label(inst, field) + " has the unknown value " + std::to_string(raw));
}

double field_f64(const isa::Instruction& inst, isa::Field field) {
  return static_cast<double>(inst.f32(field));
}

std::vector<int64_t> plane_of(const isa::Instruction& inst, isa::Slot slot) {
  const isa::TensorDesc& d = inst.get(slot);
  return {d.shape[2], d.shape[3]};
}

}  // namespace s2::lower
