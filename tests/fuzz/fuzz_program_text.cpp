// The text form of a program (compiler/driver/program_text.h), what `s2c opt` reads, on
// arbitrary text: a program or a UserError with FILE:LINE:COLUMN. What it accepts must print
// to text that parses back and prints the same ("print, parse, print gives the same text").
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

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
  std::string again;
  try {
    again = print_program(parse_program(printed, "printed.s2ir"));
  } catch (const s2::UserError& e) {
    s2::fuzz::fuzz_fail(std::string("the printed program does not parse: ") + e.what());
  }
  if (again != printed) s2::fuzz::fuzz_fail("the printed program prints differently once parsed");
  return 0;
}
