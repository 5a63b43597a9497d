#pragma once
// What the pass pipeline hands from pass to pass (`s2c compile`, `s2c opt`): a graph, and
// once the back half has run, its execution order, its memory plan and its executable. Each
// stage holds everything of the ones before it: a plan is a plan of the schedule, the
// executable is lowered from the plan.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/memory/buffer.h"
#include "compiler/schedule/lifetimes.h"
#include "isa/container/executable.h"

namespace s2::compiler {

enum class ProgramStage : uint8_t {
  Model,      // nothing yet: `import` reads the model
  Graph,      // a graph (the front half's passes and `fuse` rewrite it)
  Scheduled,  // + `order`, the execution order (`schedule`)
  Planned,    // + `lifetimes` and `plan`, an address per buffer (`plan`)
  Lowered,    // + `executable` (`lower`)
};

// "an unscheduled graph", "a scheduled graph", ...: how messages name a stage.
const char* program_stage_text(ProgramStage stage);

struct Program {
  ProgramStage stage = ProgramStage::Model;
  ir::Graph graph;
  std::string scheduler;  // who made `order` (a scheduler's name, or what the text says)
  std::vector<ir::OpId> order;
  schedule::Lifetimes lifetimes;
  memory::MemoryPlan plan;  // address[i] belongs to lifetimes.buffers[i]
  isa::Executable executable;
};

// The check run after every pass, of what the program's stage added (what came before is
// unchanged since it was checked): the graph verifies (ir::verify_graph), the order is an
// execution order of it (schedule::check_order), the plan is safe (memory::verify_plan); the
// executable needs nothing more, lowering validates it (isa::validate) before returning it.
// InternalError naming `after` ("after pass 'cse'").
void verify_program(const Program& program, const std::string& after);

}  // namespace s2::compiler
