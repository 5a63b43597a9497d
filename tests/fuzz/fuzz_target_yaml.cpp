// The target YAML loader with the shipped DRAM presets (simulator/dram/load_target.h) on
// arbitrary text: a configuration or a UserError with FILE:LINE.
#include <cstddef>
#include <cstdint>
#include <string>

#include "isa/common/errors.h"
#include "simulator/dram/load_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    s2::target::parse_target(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml",
                             S2_SOURCE_DIR "/configs/dram");
  } catch (const s2::UserError&) {
  }
  return 0;
}
