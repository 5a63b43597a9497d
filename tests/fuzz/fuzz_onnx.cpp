// The ONNX importer (compiler/onnx/onnx_import.h) on arbitrary bytes written as a model file:
// an IR graph or a UserError naming the file and the node.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "compiler/onnx/onnx_import.h"
#include "isa/common/errors.h"

namespace {

// One directory per fuzzing process: the model file, and whatever external data it names
// inside that directory (nothing, unless the fuzzer writes it there).
const std::string& model_path() {
  static const std::string path = [] {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("s2fuzz_onnx_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / "model.onnx").string();
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = model_path();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    s2::onnx_import::import_onnx(path);
  } catch (const s2::UserError&) {
  }
  return 0;
}
