#pragma once
// `s2c opt [--passes=a,b,c] FILE [-o OUT]`: runs passes on a program written as text, so a
// pass can be tested on exactly the input it is given (tests/lit/).
//
// FILE holds a program at any stage (program_text.h). It is parsed and verified, the named
// passes (pass_registry.h) run in the order given, each verified after it runs, and the
// result is printed as text. Before anything runs, the sequence is checked against the
// stages: `plan` on an unscheduled graph, `cse` on a scheduled one or `import` at all is a
// UserError naming the pass. Without --passes, the program is printed as parsed.

#include <string>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/driver/backend.h"

namespace s2::compiler {

struct OptOptions {
  std::string input;
  std::vector<std::string> passes;
  std::string output;        // the result's text goes here; stdout when empty
  ir::OptimizerOptions sgd;  // autodiff
  BackendOptions back;       // fuse (the target's features), schedule, plan, lower (its name)
  bool force = false;        // replace an output file of another kind (never the input or config)
};

// Throws UserError for a bad file, bad text, an unknown pass or a pass at the wrong stage.
void run_opt(const OptOptions& options);

}  // namespace s2::compiler
