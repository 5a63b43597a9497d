#pragma once
// What a well-formed instruction means, beyond its encoding: required operands are present,
// operands have the rank and element type their slot demands, field values are in range, and
// the operand shapes agree with each other (a conv2d's output is the size its geometry gives).
// The assembler, the container validator and the simulator all rely on these checks.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/encoding/instruction.h"

namespace s2::isa {

// Every problem found, each a sentence naming the operand or field; empty when the
// instruction is well formed.
std::vector<std::string> check_instruction(const Instruction& inst);

// The operands a PE instruction multiplies (those of its opcode that are present). They share
// one element type, which check_instruction enforces: the array's multiply mode.
inline constexpr std::array<Slot, 8> kMultiplicands{Slot::X, Slot::W, Slot::Dy, Slot::A,
                                                    Slot::B, Slot::Q, Slot::K,  Slot::V};
// That element type; nullopt for an instruction of another unit.
std::optional<DType> multiplicand_dtype(const Instruction& inst);

// Output extent of a convolution or pooling window sweep along one axis; 0 when the window
// does not fit. ceil_mode follows PyTorch: round up, but the last window must start inside
// the input or the leading padding.
uint64_t window_output_size(uint64_t input, uint64_t pad_before, uint64_t pad_after,
                            uint64_t kernel, uint64_t stride, uint64_t dilation, bool ceil_mode);

}  // namespace s2::isa
