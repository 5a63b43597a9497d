#include "isa/container/output_guard.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "isa/common/errors.h"
#include "isa/container/executable.h"

namespace s2::isa {

void guard_executable_output(const std::string& output, const std::vector<std::string>& inputs,
                             bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(output, ec)) return;
  for (const std::string& in : inputs)
    if (fs::equivalent(output, in, ec))
      throw UserError(output + ": refusing to overwrite the input file with the output");
  if (fs::is_directory(output, ec)) throw UserError(output + ": is a directory");
  char magic[sizeof kMagic] = {};
  std::ifstream f(output, std::ios::binary);
  f.read(magic, sizeof magic);
  const bool ours = f.gcount() == sizeof magic && std::memcmp(magic, kMagic, sizeof magic) == 0;
  if (!ours && !force)
    throw UserError(output +
                    ": exists and is not an S2Train executable; refusing to overwrite "
                    "it (pass --force to replace it)");
}

}  // namespace s2::isa
