#include "compiler/driver/opt.h"

#include <iostream>

#include "compiler/driver/pass_registry.h"
#include "compiler/driver/program_text.h"
#include "isa/common/errors.h"
#include "isa/container/output_guard.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"

namespace s2::compiler {

void run_opt(const OptOptions& options) {
  const std::vector<uint8_t> bytes = isa::read_file_bytes(options.input);
  Program program = parse_program(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), options.input);

  ProgramStage stage = program.stage;
  for (const std::string& pass : options.passes) {
    if (!pass_registry().contains(pass))
      throw UserError("--passes: " + pass_registry().unknown_message(pass));
    const std::string problem = pass_stage_problem(pass, stage);
    if (!problem.empty()) throw UserError("--passes: " + problem);
    stage = pass_registry().get(pass).makes;
  }

  // The outputs before any work: never the input or the config, never a file of another kind.
  const std::vector<std::string> inputs{options.input, options.back.config};
  if (!options.output.empty())
    isa::guard_output(options.output, isa::FileKind::IrText, inputs, options.force);
  if (!options.back.memory_report.empty())
    isa::guard_output(options.back.memory_report, isa::FileKind::Json, inputs, options.force);

  PassContext context;
  context.front.sgd = options.sgd;
  context.back = options.back;
  // Naming a pass runs it: fuse-attention, off in `s2c compile` unless --fuse-attention.
  for (const std::string& pass : options.passes)
    if (pass == "fuse-attention") context.back.fuse_attention = true;
  for (const std::string& pass : options.passes)
    run_pass(pass, program, context);

  const std::string text = print_program(program);
  if (options.output.empty()) {
    std::cout << text;
    return;
  }
  isa::write_file(options.output, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace s2::compiler
