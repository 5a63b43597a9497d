#pragma once
// One Graph-IR op as one S2Train instruction, without dependencies: operands from the op's
// tensors (bound by schema name, op_lowering.h) at the addresses of their data, fields from
// its attributes. The instruction is checked against the ISA's shape rules before it is
// returned, so a mismatch is reported against the op rather than later by the validator.

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/encoding/instruction.h"

namespace s2::lower {

// Where each data node lives in DRAM, indexed by data id; nullopt for data with no buffer.
using DataAddresses = std::vector<std::optional<uint64_t>>;

// UserError naming the op when it has no S2Train form; InternalError when a tensor it must
// read or write has no address (precondition: every such data node is planned).
isa::Instruction lower_op(const ir::Graph& graph, const ir::Op& op, const DataAddresses& addresses);

}  // namespace s2::lower
