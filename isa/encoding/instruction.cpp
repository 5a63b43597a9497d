#include "isa/encoding/instruction.h"

#include <cstring>
#include <string>

#include "isa/common/errors.h"

namespace s2::isa {

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

const char* space_name(MemSpace space) {
  return space == MemSpace::Host ? "host" : "dram";
}

TensorDesc TensorDesc::contiguous(uint64_t addr, DType dtype, const std::vector<uint32_t>& shape) {
  S2_CHECK(!shape.empty() && shape.size() <= kMaxRank,
           "TensorDesc::contiguous: rank " + std::to_string(shape.size()) + " outside 1.." +
               std::to_string(kMaxRank));
  TensorDesc d;
  d.addr = addr;
  d.dtype = dtype;
  d.rank = static_cast<uint8_t>(shape.size());
  uint64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    d.shape[i] = shape[i];
    S2_CHECK(stride <= UINT32_MAX, "TensorDesc::contiguous: stride overflows 32 bits");
    d.strides[i] = static_cast<uint32_t>(stride);
    stride *= shape[i];
  }
  return d;
}

uint64_t TensorDesc::elements() const {
  uint64_t n = 1;
  for (unsigned i = 0; i < rank; ++i)
    n = saturating_mul(n, shape[i]);
  return n;
}

uint64_t TensorDesc::span_bytes() const {
  uint64_t last = 0;
  for (unsigned i = 0; i < rank; ++i) {
    if (shape[i] == 0) return 0;
    last = saturating_add(last, saturating_mul(shape[i] - 1, strides[i]));
  }
  return saturating_mul(saturating_add(last, 1), dtype_bytes(dtype));
}

bool TensorDesc::is_contiguous() const {
  uint64_t stride = 1;
  for (unsigned i = rank; i-- > 0;) {
    if (shape[i] != 1 && strides[i] != stride) return false;
    stride *= shape[i];
  }
  return true;
}

bool TensorDesc::operator==(const TensorDesc& other) const {
  return addr == other.addr && space == other.space && dtype == other.dtype && rank == other.rank &&
         shape == other.shape && strides == other.strides;
}

Instruction::Instruction(Opcode opcode) : opcode_(opcode), info_(&opcode_info(opcode)) {
  for (Field f : info_->fields)
    fields_[static_cast<size_t>(f)] = field_info(f).default_value.value_or(0);
}

bool Instruction::has_field(Field field) const {
  return field_index(*info_, field) >= 0;
}
bool Instruction::has_slot(Slot slot) const {
  return operand_index(*info_, slot) >= 0;
}

uint32_t Instruction::raw(Field field) const {
  if (!has_field(field))  // the message is built only on failure: hot path
    throw InternalError(std::string(info_->mnemonic) + " has no field '" +
                        std::string(field_info(field).name) + "'");
  return fields_[static_cast<size_t>(field)];
}

void Instruction::set_raw(Field field, uint32_t value) {
  const FieldInfo& fi = field_info(field);
  if (!has_field(field))  // the message is built only on failure: hot path
    throw InternalError(std::string(info_->mnemonic) + " has no field '" + std::string(fi.name) +
                        "'");
  S2_CHECK(fi.bits == 32 || value < (uint32_t{1} << fi.bits),
           std::string(info_->mnemonic) + "." + std::string(fi.name) + ": value " +
               std::to_string(value) + " does not fit in " + std::to_string(fi.bits) + " bits");
  fields_[static_cast<size_t>(field)] = value;
}

float Instruction::f32(Field field) const {
  return f32_from_bits(raw(field));
}
void Instruction::set_f32(Field field, float value) {
  set_raw(field, f32_bits(value));
}

size_t Instruction::operand_position(Slot slot) const {
  const int i = operand_index(*info_, slot);
  if (i < 0)  // the message is built only on failure: hot path
    throw InternalError(std::string(info_->mnemonic) + " has no operand '" +
                        std::string(slot_info(slot).name) + "'");
  return static_cast<size_t>(i);
}

const std::optional<TensorDesc>& Instruction::operand(Slot slot) const {
  return operands_[operand_position(slot)];
}

const TensorDesc& Instruction::get(Slot slot) const {
  const std::optional<TensorDesc>& d = operand(slot);
  if (!d.has_value())  // the message is built only on failure: hot path
    throw InternalError(std::string(info_->mnemonic) + ": operand '" +
                        std::string(slot_info(slot).name) + "' is absent");
  return *d;
}

void Instruction::set_operand(Slot slot, const TensorDesc& desc) {
  operands_[operand_position(slot)] = desc;
}

void Instruction::clear_operand(Slot slot) {
  operands_[operand_position(slot)].reset();
}

bool Instruction::names_host_memory() const {
  for (const std::optional<TensorDesc>& d : operands_)
    if (d && d->space == MemSpace::Host) return true;
  return false;
}

bool Instruction::operator==(const Instruction& other) const {
  return opcode_ == other.opcode_ && fields_ == other.fields_ && operands_ == other.operands_ &&
         deps == other.deps;
}

}  // namespace s2::isa
