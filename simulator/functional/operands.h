#pragma once
// Operand access for the functional kernels: an instruction's tensor operands gathered from
// and scattered to the DRAM image through their descriptors. Every kernel gathers all of its
// inputs before it scatters any output (the hardware streams inputs through SRAM first), so an
// output that aliases an input - sgd's weight, bn_fwd's running statistics - reads the old
// values, as the reference interpreter's in-place updates do.

#include <optional>
#include <string>
#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

class Operands {
 public:
  Operands(const isa::Instruction& inst, DramImage& image) : inst_(inst), image_(image) {}

  bool has(isa::Slot slot) const { return inst_.operand(slot).has_value(); }
  const isa::TensorDesc& desc(isa::Slot slot) const { return inst_.get(slot); }
  std::vector<float> f32(isa::Slot slot) const { return image_.read_f32(inst_.get(slot)); }
  std::vector<int32_t> i32(isa::Slot slot) const { return image_.read_i32(inst_.get(slot)); }
  // Empty when the operand is absent.
  std::optional<std::vector<float>> opt_f32(isa::Slot slot) const;
  void write(isa::Slot slot, const std::vector<float>& values) {
    image_.write_f32(inst_.get(slot), values);
  }
  void write(isa::Slot slot, const std::vector<int32_t>& values) {
    image_.write_i32(inst_.get(slot), values);
  }
  // A UserError "<mnemonic>: <what>" for data the instruction's checks cannot see (a label out
  // of range, a pooling index outside its plane).
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const isa::Instruction& inst_;
  DramImage& image_;
};

// Null for an absent operand, else its data.
inline const float* data_or_null(const std::optional<std::vector<float>>& v) {
  return v ? v->data() : nullptr;
}

}  // namespace s2::sim::functional
