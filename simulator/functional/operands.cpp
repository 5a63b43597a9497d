#include "simulator/functional/operands.h"

#include "isa/common/errors.h"

namespace s2::sim::functional {

std::optional<std::vector<float>> Operands::opt_f32(isa::Slot slot) const {
  if (!has(slot)) return std::nullopt;
  return f32(slot);
}

void Operands::fail(const std::string& what) const {
  throw UserError(std::string(inst_.info().mnemonic) + ": " + what);
}

}  // namespace s2::sim::functional
