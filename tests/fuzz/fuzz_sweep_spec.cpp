// The sweep spec reader (simulator/sweep/sweep_spec.h) on arbitrary text: a spec or a
// UserError with SPEC:LINE. It reads a file and resolves `base:` beside it, so each input is
// written to sweeps/spec.yaml in a directory of this process whose other entries link to the
// shipped configuration (configs/s2train_base.yaml and its preset directories): the seeds'
// `base: ../s2train_base.yaml` is found as it is beside configs/sweeps/. The spec's constraint
// expressions are parsed and evaluated on the base configuration by the reader.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_common.h"
#include "isa/common/errors.h"
#include "simulator/sweep/sweep_spec.h"

namespace {
namespace fs = std::filesystem;

const std::string kConfigs = S2_SOURCE_DIR "/configs";

fs::path& work_dir() {
  static fs::path dir;
  return dir;
}

// The input's path, in a directory made on first use and removed when the process exits.
const std::string& spec_path() {
  static const std::string path = [] {
    const fs::path dir =
        fs::temp_directory_path() / ("s2_fuzz_sweep_spec." + std::to_string(::getpid()));
    fs::create_directories(dir / "sweeps");
    work_dir() = dir;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(work_dir(), ec);
    });
    for (const char* entry : {"s2train_base.yaml", "dram", "host_link", "tech"}) {
      std::error_code ec;
      fs::remove(dir / entry, ec);
      fs::create_symlink(fs::path(kConfigs) / entry, dir / entry);
    }
    return (dir / "sweeps" / "spec.yaml").string();
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = spec_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) s2::fuzz::fuzz_fail("cannot write the input to " + path);
  }
  try {
    s2::sim::sweep::load_sweep_spec(path, kConfigs + "/s2train_base.yaml");
  } catch (const s2::UserError&) {
  }
  return 0;
}
