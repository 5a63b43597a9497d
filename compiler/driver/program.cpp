#include "compiler/driver/program.h"

#include "compiler/ir/verifier.h"
#include "compiler/memory/verify_plan.h"
#include "compiler/schedule/schedule.h"
#include "isa/common/errors.h"

namespace s2::compiler {

const char* program_stage_text(ProgramStage stage) {
  switch (stage) {
    case ProgramStage::Model:
      return "a model to import";
    case ProgramStage::Graph:
      return "an unscheduled graph";
    case ProgramStage::Scheduled:
      return "a scheduled graph";
    case ProgramStage::Planned:
      return "a memory-planned program";
    case ProgramStage::Lowered:
      return "a lowered program";
  }
  return "?";
}

void verify_program(const Program& p, const std::string& after) {
  switch (p.stage) {
    case ProgramStage::Model:
      return;
    case ProgramStage::Graph:
      ir::verify_or_throw(p.graph, after);
      return;
    case ProgramStage::Scheduled:
      schedule::check_order(p.graph, p.order, p.scheduler + " " + after);
      return;
    case ProgramStage::Planned:
      S2_CHECK(p.plan.address.size() == p.lifetimes.buffers.size(),
               "the plan " + after + " has " + std::to_string(p.plan.address.size()) +
                   " addresses for " + std::to_string(p.lifetimes.buffers.size()) + " buffers");
      memory::verify_plan(p.lifetimes.buffers, p.plan);
      return;
    case ProgramStage::Lowered:
      return;  // lower::lower_to_executable validates the executable before returning it
  }
}

}  // namespace s2::compiler
