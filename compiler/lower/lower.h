#pragma once
// Lowering and emission: a scheduled, memory-planned Graph-IR training step becomes an
// S2Train executable (DESIGN.md §4).
//
// Every non-view op in `order` becomes exactly one instruction (op_lowering.h); views become
// nothing, their tensors are read through strided descriptors (descriptor.h). Dependencies
// come from the DRAM ranges the instructions touch, so they also cover the hazards the plan's
// address reuse creates (dependencies.h). The tensor table, initial data and plan summary
// come from the buffers and the plan (tensor_table.h); the debug section names the source op
// of each instruction. The result has passed isa::validate.
//
// Preconditions: `order` is an execution order of the graph's ops (every op once, producers
// first); buffer i holds data node buffer_data[i] at plan.address[i] with a lifetime in steps
// of `order`, and every data node an emitted instruction reads or writes has a buffer.
// The lowering trusts the plan: the planner's verifier proves it, and a deliberately broken
// plan is lowered as given (the stream checker then computes wrong numbers).

#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/memory/buffer.h"
#include "isa/container/executable.h"

namespace s2::lower {

struct LowerOptions {
  std::string target = "s2train_base";  // recorded in the container header (<= 31 chars)
};

// Throws UserError naming the op or tensor that has no S2Train form (a rank-5 tensor, a
// stride a field cannot hold, an input the instruction has no operand for);
// InternalError when the preconditions do not hold.
isa::Executable lower_to_executable(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                                    const std::vector<memory::Buffer>& buffers,
                                    const std::vector<ir::DataId>& buffer_data,
                                    const memory::MemoryPlan& plan, const LowerOptions& options);

}  // namespace s2::lower
