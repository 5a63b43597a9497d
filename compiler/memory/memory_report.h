#pragma once
// The memory plan as JSON, for `s2c --memory-report plan.json` and scripts/plot_memory.py.
//
// {
//   "planner": "greedy", "alignment": 64, "steps": 412,
//   "persistent_bytes": ..., "arena_base": ..., "arena_size": ..., "dram_size": ...,
//   "lower_bound": ..., "ratio": 1.0042,
//   "totals": {"activation": {"count": 60, "bytes": 123456}, ...},   // per role present
//   "tensors": [{"name": "conv1.out", "role": "activation", "size": 65536, "first": 3,
//                "last": 410, "persistent": false, "address": 1048576}, ...]
// }
//
// Sizes are the tensors' own bytes (the plan reserves them rounded up to the alignment);
// "first"/"last" are the inclusive lifetime in execution steps as the schedule gave it
// (persistent tensors keep their space throughout regardless); "steps" is one past the last
// step any tensor is live at; "ratio" is arena_size / lower_bound (1 when the lower bound
// is 0). Tensors appear in buffer order, roles in isa::TensorRole order.

#include <string>
#include <vector>

#include "compiler/memory/buffer.h"

namespace s2::memory {

// `plan` must be a plan of `buffers` (InternalError when the counts differ).
std::string memory_report_json(const std::vector<Buffer>& buffers, const MemoryPlan& plan);

// Writes memory_report_json() to `path` (`s2c --memory-report`). Throws UserError naming the
// path when it cannot be written.
void write_memory_report(const std::string& path, const std::vector<Buffer>& buffers,
                         const MemoryPlan& plan);

}  // namespace s2::memory
