#pragma once
// The ISA reference (docs/isa.md), generated from the instruction-set table alone so that the
// document can never disagree with the encoder. `s2c isa-doc -o docs/isa.md` writes it; a test
// fails when the checked-in copy is stale.

#include <string>

namespace s2::isa {

// The complete reference as Markdown: introduction, encoding rules, element types,
// enumerations, fields, operand names, then one section per instruction in table order.
// Deterministic: the same table always gives the same bytes.
std::string isa_reference_markdown();

}  // namespace s2::isa
