#pragma once
// The s2c subcommands, callable without the command line (tests use them directly).

#include <string>

namespace s2::compiler {

struct AsmOptions {
  std::string input;   // assembly text (docs/assembly.md)
  std::string output;  // executable to write
  bool force = false;  // replace an existing file that is not an S2Train executable
};

// Assembles, validates and writes the executable. Throws UserError.
void run_asm(const AsmOptions& options);

// Writes the generated ISA reference (the content of docs/isa.md) to `output`, or to stdout
// when it is empty or "-". An existing file that is not an earlier ISA reference is replaced
// only with `force`.
void run_isa_doc(const std::string& output, bool force);

}  // namespace s2::compiler
