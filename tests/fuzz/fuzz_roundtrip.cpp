// Any executable the reader accepts disassembles (with all data) to text that assembles back
// to the same program: every field, name (quoted where needed), stride and initial value
// (issue 19). Its CRCs are made right first, so mutations reach past them.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.h"
#include "isa/asm/assembler.h"
#include "isa/asm/disassembler.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace s2::isa;
  Executable exe;
  try {
    exe = read_executable(s2::fuzz::with_valid_crcs(std::vector<uint8_t>(data, data + size)),
                          "fuzz.bin");
  } catch (const s2::UserError&) {
    return 0;
  }
  DisasmOptions all;
  all.data_limit = 0;
  const std::string listing = disassemble(exe, all);
  Executable again;
  try {
    again = assemble(listing, "listing");
  } catch (const s2::UserError& e) {
    s2::fuzz::fuzz_fail(
        std::string("the disassembly of an accepted executable does not assemble: ") + e.what());
  }
  // The container leaves the data section's layout free (where each tensor's contents sit,
  // bytes no tensor refers to: docs/container.md), which assembly text does not spell; all
  // else must survive: the reassembled program disassembles to the same text.
  if (disassemble(again, all) != listing)
    s2::fuzz::fuzz_fail("an accepted executable does not round-trip through its disassembly");
  return 0;
}
