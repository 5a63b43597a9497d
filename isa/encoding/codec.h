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

// The container format version whose instruction layout the codec writes or reads
// (isa/container/executable.h). An opcode whose fields arrived in a later version
// (S2_FIELDS_SINCE in isa.def) encodes no field words in an older one, its fields all at their
// defaults. kNewestLayout: the layout of the newest version.
inline constexpr uint32_t kNewestLayout = UINT32_MAX;

// The field words `op` takes in format version `version`.
unsigned field_words(const OpcodeInfo& op, uint32_t version = kNewestLayout);

// The oldest format version whose layout holds `inst`: its opcode's fields_since when one of
// its fields differs from its default, else 0 (every version).
uint32_t oldest_layout(const Instruction& inst);

// Number of 32-bit words `inst` encodes to.
size_t encoded_words(const Instruction& inst, uint32_t version = kNewestLayout);

// Appends the encoding of `inst` to `out` (an internal error when `version` is older than
// oldest_layout(inst)).
void encode(const Instruction& inst, std::vector<uint32_t>* out, uint32_t version = kNewestLayout);

// Decodes the instruction starting at words[0]; `available` words may be read. Sets
// *consumed to the instruction's length. Throws DecodeError.
Instruction decode(const uint32_t* words, size_t available, size_t* consumed,
                   uint32_t version = kNewestLayout);

}  // namespace s2::isa
