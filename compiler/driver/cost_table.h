#pragma once
// The simulator's cost model of the target as the compiler's choices see it: an op's predicted
// cycles are what sim::timing::plan_instruction plans for its lowered instruction (the larger of
// its tiles' PE and PPU cycles and its roofline bound), with every data node at address 0 (the
// tiles do not depend on where operands are, only on their shapes; the DRAM model's row hits
// do, which is why this is a prediction and `s2sim run` the measurement). The plans leave out
// the tiles' DRAM access lists (sim::timing::TileDetail::Cycles), which the cycles do not
// need. Used by the memory-budget pass (compiler/schedule/fit_budget.h).

#include "compiler/schedule/fit_budget.h"
#include "isa/target/target_desc.h"

namespace s2::compiler {

// Instructions that differ only in addresses cost the same: each distinct one is planned once.
schedule::OpCost op_cost_table(const target::TargetDesc& target);

// A copy of `bytes` from DRAM to host memory: the link's bound plus its latency. UserError when
// the target has no host link.
schedule::SwapCost swap_cost_table(const target::TargetDesc& target);

}  // namespace s2::compiler
