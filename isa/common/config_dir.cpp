#include "isa/common/config_dir.h"

#include <cstdlib>
#include <filesystem>

#include "isa/common/errors.h"

namespace s2 {
namespace fs = std::filesystem;

std::string config_dir() {
  if (const char* dir = std::getenv(kConfigDirVariable); dir != nullptr && *dir != '\0') {
    if (!fs::is_directory(dir))
      throw UserError(std::string(kConfigDirVariable) + "=" + dir + ": not a directory");
    return dir;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path dir = exe.parent_path() / ".." / "share" / "s2train" / "configs";
  if (!ec && fs::is_directory(dir, ec)) return fs::weakly_canonical(dir, ec).string();
  throw UserError("cannot find the shipped configurations: " +
                  (ec ? std::string("the running executable's path is unknown")
                      : "no directory " + dir.string()) +
                  "; give --config FILE or set " + kConfigDirVariable +
                  " to a directory holding s2train_base.yaml");
}

std::string default_config() {
  return (fs::path(config_dir()) / "s2train_base.yaml").string();
}

}  // namespace s2
