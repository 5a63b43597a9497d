// s2c: the S2Train compiler driver.
#include <CLI/CLI.hpp>

#include "compiler/driver/commands.h"
#include "isa/common/tool_main.h"
#include "s2/version.h"

int main(int argc, char** argv) {
  CLI::App app{"s2c - the S2Train compiler: models to S2Train executables (*.bin)"};
  app.set_version_flag("--version", std::string("s2c ") + s2::kVersion);
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 bad input (the message names the file and place), 2 internal "
      "error.\n"
      "Planned: `s2c compile MODEL -o OUT.bin` compiles a model-zoo name or an ONNX file into "
      "one training step;\nit is not part of this build yet.");

  s2::compiler::AsmOptions asm_options;
  CLI::App* asm_cmd = app.add_subcommand(
      "asm", "Assemble S2Train assembly text (docs/assembly.md) into a validated executable");
  asm_cmd->add_option("input", asm_options.input, "assembly source (.s2asm)")
      ->required()
      ->check(CLI::ExistingFile);
  asm_cmd->add_option("-o,--output", asm_options.output, "executable to write (.bin)")->required();
  asm_cmd->add_flag("--force", asm_options.force,
                    "replace an existing output file even if it is not an S2Train executable");

  std::string doc_output;
  CLI::App* doc_cmd =
      app.add_subcommand("isa-doc", "Print the ISA reference generated from the instruction table");
  doc_cmd->add_option("-o,--output", doc_output, "file to write (default: stdout)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? s2::kExitOk : s2::kExitUserError;
  }
  return s2::run_tool("s2c", [&] {
    if (*asm_cmd) s2::compiler::run_asm(asm_options);
    if (*doc_cmd) s2::compiler::run_isa_doc(doc_output);
    return s2::kExitOk;
  });
}
