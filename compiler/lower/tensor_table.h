#pragma once
// The executable's records about memory: the tensor table (one entry per planned buffer:
// name, role, element type and shape of its data, address, reserved size, planned lifetime in
// instruction indices), the initial data section, and the memory-plan summary.

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/memory/buffer.h"
#include "isa/container/executable.h"

namespace s2::lower {

// Buffer i holds data node buffer_data[i] at plan.address[i]; its lifetime is in steps of the
// execution order, and instruction_of_step[s] is the instruction emitted for the op at step s
// (-1 for views, which emit none). exe.instructions must be complete (ending with `end`):
// lifetimes map onto their indices, and persistent buffers span the whole program.
void emit_tensor_table(const ir::Graph& graph, const std::vector<memory::Buffer>& buffers,
                       const std::vector<ir::DataId>& buffer_data, const memory::MemoryPlan& plan,
                       const std::vector<int64_t>& instruction_of_step, isa::Executable& exe);

}  // namespace s2::lower
