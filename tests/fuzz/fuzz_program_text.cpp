// The text form of a program (compiler/driver/program_text.h), what `s2c opt` reads, on
// arbitrary text: a program or a UserError with FILE:LINE:COLUMN. What it accepts must print
// to text that parses back and prints the same ("print, parse, print gives the same text"),
// and `s2c opt --passes` must then run on it to the end of the pipeline or stop with a
// UserError: one of four pass sequences (picked by the program's text), each pass that its
// stage allows, as s2c opt checks them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/driver/pass_registry.h"
#include "compiler/driver/program_text.h"
#include "fuzz_common.h"
#include "isa/common/config_dir.h"
#include "isa/common/errors.h"

// A `lowered target=NAME` section names a shipped configuration: find them in the source tree
// (the fuzz binary has no share/s2train/configs beside it; isa/common/config_dir.h).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv(s2::kConfigDirVariable, S2_SOURCE_DIR "/configs", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace s2::compiler;
  std::string printed;
  try {
    printed = print_program(
        parse_program(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.s2ir"));
  } catch (const s2::UserError&) {
    return 0;
  }
  Program program;
  try {
    program = parse_program(printed, "printed.s2ir");
  } catch (const s2::UserError& e) {
    s2::fuzz::fuzz_fail(std::string("the printed program does not parse: ") + e.what());
  }
  if (print_program(program) != printed)
    s2::fuzz::fuzz_fail("the printed program prints differently once parsed");

  static const std::vector<std::vector<std::string>> kPipelines{
      {"shape-inference", "dce", "cse", "fold", "simplify", "fuse", "schedule", "plan", "lower"},
      {"autodiff", "shape-inference", "simplify", "fuse", "schedule", "plan", "lower"},
      {"fuse-attention", "fuse", "place-concat", "elide-copies", "in-place", "schedule", "plan",
       "lower"},
      {"autocast", "fuse", "schedule", "fit-budget", "plan", "lower"}};
  const std::vector<std::string>& pipeline =
      kPipelines[std::hash<std::string>{}(printed) % kPipelines.size()];
  try {
    PassContext context;
    for (const std::string& pass : pipeline) {
      if (!pass_stage_problem(pass, program.stage).empty()) continue;
      if (pass == "fuse-attention") context.back.fuse_attention = true;  // as s2c opt does
      run_pass(pass, program, context);
    }
  } catch (const s2::UserError&) {
  }
  return 0;
}
