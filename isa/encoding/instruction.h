#pragma once
// One decoded S2Train instruction: its opcode, scalar fields, tensor operands (DRAM
// descriptors) and explicit dependencies. Which fields and operands an opcode has comes from
// the table (isa.def); accessors refuse the ones it does not have.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "isa/common/float_bits.h"
#include "isa/encoding/isa_table.h"

namespace s2::isa {

// The address spaces a descriptor can name. Every instruction reads and writes the
// accelerator's DRAM; host memory, behind the target's host link, is reached only by `copy`
// (the DMA engines move the bytes over the link; check_instruction enforces it). Each space
// has its own addresses from 0: the memory plan gives DRAM's size and host memory's.
enum class MemSpace : uint8_t { Dram = 0, Host = 1 };
// "dram" or "host".
const char* space_name(MemSpace space);

// A tensor in DRAM (or host memory): base address, element type, shape and strides (in
// elements, outermost dimension first). Entries of shape and strides past `rank` are zero.
struct TensorDesc {
  uint64_t addr = 0;
  MemSpace space = MemSpace::Dram;
  DType dtype = DType::F32;
  uint8_t rank = 0;
  std::array<uint32_t, kMaxRank> shape{};
  std::array<uint32_t, kMaxRank> strides{};

  // A densely packed row-major tensor.
  static TensorDesc contiguous(uint64_t addr, DType dtype, const std::vector<uint32_t>& shape);

  // Saturates at UINT64_MAX.
  uint64_t elements() const;
  // Saturates at UINT64_MAX. Bytes from addr to one past the last byte of the element farthest from
  // addr; the range [addr, addr + span_bytes()) holds every element.
  uint64_t span_bytes() const;
  bool is_contiguous() const;
  std::vector<uint32_t> dims() const { return {shape.begin(), shape.begin() + rank}; }

  bool operator==(const TensorDesc& other) const;
  bool operator!=(const TensorDesc& other) const { return !(*this == other); }
};

class Instruction {
 public:
  // Every field starts at its table default (required fields at 0); no operands, no deps.
  explicit Instruction(Opcode opcode);

  Opcode opcode() const { return opcode_; }
  const OpcodeInfo& info() const { return *info_; }
  bool has_field(Field field) const;
  bool has_slot(Slot slot) const;
  // Whether an operand is in host memory (a copy to or from the host: the only instruction the
  // ISA lets reach it).
  bool names_host_memory() const;

  // Raw encoded value of a field of this opcode.
  uint32_t raw(Field field) const;
  void set_raw(Field field, uint32_t value);

  uint32_t u(Field field) const { return raw(field); }
  // An Int field: its 32 bits as two's complement.
  int32_t i(Field field) const { return static_cast<int32_t>(raw(field)); }
  bool flag(Field field) const { return raw(field) != 0; }
  float f32(Field field) const;
  void set_f32(Field field, float value);
  template <typename E>
  E as(Field field) const {
    return static_cast<E>(raw(field));
  }

  const std::optional<TensorDesc>& operand(Slot slot) const;
  // The operand, which must be present (an internal error otherwise).
  const TensorDesc& get(Slot slot) const;
  void set_operand(Slot slot, const TensorDesc& desc);
  void clear_operand(Slot slot);

  std::vector<uint32_t> deps;

  bool operator==(const Instruction& other) const;
  bool operator!=(const Instruction& other) const { return !(*this == other); }

 private:
  // The slot's position in info().operands; an internal error when the opcode has no such slot.
  size_t operand_position(Slot slot) const;

  Opcode opcode_;
  const OpcodeInfo* info_;
  std::array<uint32_t, kNumFields> fields_{};
  // By the slot's position in info().operands: an opcode has a few of the kNumSlots slots, and
  // an array over all of them would make every instruction several kilobytes.
  std::array<std::optional<TensorDesc>, kMaxOperands> operands_{};
};

// Byte and element counts saturate at UINT64_MAX instead of wrapping, so a hostile shape can
// never look small.
uint64_t saturating_mul(uint64_t a, uint64_t b);
uint64_t saturating_add(uint64_t a, uint64_t b);

}  // namespace s2::isa
