#include "compiler/driver/commands.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "isa/asm/assembler.h"
#include "isa/asm/isa_doc.h"
#include "isa/common/errors.h"
#include "isa/container/output_guard.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"

namespace s2::compiler {

void run_asm(const AsmOptions& options) {
  const std::vector<uint8_t> bytes = isa::read_file_bytes(options.input);
  const std::string text(bytes.begin(), bytes.end());
  const isa::Executable exe = isa::assemble(text, options.input);
  isa::guard_output(options.output, isa::FileKind::Executable, {options.input}, options.force);
  isa::write_executable(options.output, exe);
}

void run_isa_doc(const std::string& output, bool force) {
  const std::string doc = isa::isa_reference_markdown();
  if (output.empty() || output == "-") {
    std::cout << doc;
    return;
  }
  isa::guard_output(output, isa::FileKind::IsaDoc, {}, force);
  isa::write_file(output, std::vector<uint8_t>(doc.begin(), doc.end()));
}

}  // namespace s2::compiler
