// The .npy reader (isa/io/npy.h) on arbitrary bytes: an array or a UserError; a decoded array
// encodes back to a file that decodes to the same array.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.h"
#include "isa/common/errors.h"
#include "isa/io/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace s2;
  npy::Array a;
  try {
    a = npy::decode(std::vector<uint8_t>(data, data + size), "fuzz.npy");
  } catch (const UserError&) {
    return 0;
  }
  const npy::Array b = npy::decode(npy::encode(a.dtype, a.shape, a.data), "again.npy");
  if (b.dtype != a.dtype || b.shape != a.shape || b.data != a.data)
    fuzz::fuzz_fail(".npy array does not survive encode and decode");
  return 0;
}
