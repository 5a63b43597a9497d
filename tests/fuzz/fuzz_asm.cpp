// The assembler (isa/asm/assembler.h) on arbitrary text: an executable or a UserError with
// FILE:LINE:COL. What it accepts must survive the binary and the disassembler: assemble,
// serialise, read back, disassemble with all data, assemble again: the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "isa/asm/assembler.h"
#include "isa/asm/disassembler.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace s2::isa;
  std::vector<uint8_t> bytes;
  try {
    bytes =
        serialize(assemble(std::string(reinterpret_cast<const char*>(data), size), "fuzz.s2asm"));
  } catch (const s2::UserError&) {
    return 0;
  }
  DisasmOptions all;
  all.data_limit = 0;
  const Executable back = read_executable(bytes, "fuzz.bin");  // must be accepted
  const std::vector<uint8_t> again = serialize(assemble(disassemble(back, all), "listing"));
  if (again != bytes) s2::fuzz::fuzz_fail("assembled program does not round-trip through text");
  return 0;
}
