#pragma once
// Binary encoding of instructions, derived from the layout rules in isa.def. The decoder
// checks the structure of the words (opcode, length, reserved bits, descriptor encoding);
// what the values mean is checked by check_instruction() in semantics.h.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/encoding/instruction.h"

namespace s2::isa {

// A structural problem in encoded words. `word` counts 32-bit words from the start of the
// instruction being decoded; the container reader turns it into a file offset.
class DecodeError : public std::runtime_error {
 public:
  DecodeError(size_t word, const std::string& message) : std::runtime_error(message), word_(word) {}
  size_t word() const { return word_; }

 private:
  size_t word_;
};

// Number of 32-bit words `inst` encodes to.
size_t encoded_words(const Instruction& inst);

// Appends the encoding of `inst` to `out`.
void encode(const Instruction& inst, std::vector<uint32_t>* out);

// Decodes the instruction starting at words[0]; `available` words may be read. Sets
// *consumed to the instruction's length. Throws DecodeError.
Instruction decode(const uint32_t* words, size_t available, size_t* consumed);

}  // namespace s2::isa
