// The container reader and validator (isa/container/reader.h) on arbitrary bytes: an
// executable or a UserError naming the section and offset, nothing else.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // As given (the checksums must catch a corrupt file), then with its CRCs made right, so the
  // mutation reaches the parser and validator behind them.
  const std::vector<uint8_t> bytes(data, data + size);
  for (const std::vector<uint8_t>& input : {bytes, s2::fuzz::with_valid_crcs(bytes)}) {
    try {
      s2::isa::read_executable(input, "fuzz.bin");
    } catch (const s2::UserError&) {
    }
  }
  return 0;
}
