#pragma once
// Every pass of the compiler, both halves, in one named list in pipeline order (STYLE.md,
// "Wiring"): `s2c compile` runs them in this order, `--dump-after=NAME` accepts exactly these
// names, and `s2c opt --passes=a,b,c` runs any sequence of them on IR text.
//
//   import           front  model zoo or ONNX file -> forward graph (--input, --labels)
//   autodiff         front  forward graph -> training step (--lr, --momentum, --weight-decay)
//   shape-inference  front  checks every op's output shapes
//   dce, cse, fold, simplify   front  the simplification passes (compiler/passes/)
//   fuse             back   PPU epilogues into PE ops, by the target's features (--config);
//                           with --no-fuse it leaves the graph as it is
//   schedule         back   the execution order (--schedule)
//   plan             back   buffer lifetimes and an address per buffer (--planner,
//                           --alignment, --plan-seed, --plan-budget; --memory-report)
//   lower            back   S2Train instructions: a validated executable (--config's name)
//
// Each pass needs the program at one stage and leaves it at another (program.h): import needs
// nothing, the graph passes up to fuse need an unscheduled graph, schedule makes a scheduled
// graph, plan needs one and makes a planned program, lower needs that and makes a lowered one.

#include <optional>
#include <ostream>
#include <string>

#include "compiler/driver/backend.h"
#include "compiler/driver/frontend.h"
#include "compiler/driver/program.h"
#include "isa/common/registry.h"
#include "isa/target/target_desc.h"

namespace s2::compiler {

// What the passes read besides the program: the command line's settings.
struct PassContext {
  FrontendOptions front;         // import, autodiff
  BackendOptions back;           // fuse, schedule, plan, lower
  std::string dump_after;        // print the program text after this pass (empty: none)
  std::ostream* dump = nullptr;  // where (stdout when null)

  // back.target, or back.config's target description (the base configuration when empty)
  // loaded once.
  const target::TargetDesc& target();

 private:
  std::optional<target::TargetDesc> target_;
};

enum class PassHalf : uint8_t { Front, Back };

struct PassInfo {
  PassHalf half;
  ProgramStage needs;
  ProgramStage makes;
  std::string doc;                             // one line, for `s2c opt --help`
  std::string (*run)(Program&, PassContext&);  // returns a one-line summary
};

const Registry<PassInfo>& pass_registry();

// Why `pass` cannot run on a program at `stage`, or "" when it can, e.g. "pass 'plan' needs
// a scheduled graph, but the program is an unscheduled graph (run 'schedule' first)".
std::string pass_stage_problem(const std::string& pass, ProgramStage stage);

// Runs the named pass: UserError for an unknown name or a program at the wrong stage, then
// the pass, then verify_program; prints the program text (program_text.h) when the pass is
// context.dump_after. Returns the pass's name, time, op count after it and summary.
PassRecord run_pass(const std::string& name, Program& program, PassContext& context);

}  // namespace s2::compiler
