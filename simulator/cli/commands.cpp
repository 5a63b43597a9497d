#include "simulator/cli/commands.h"

#include "isa/asm/disassembler.h"
#include "isa/container/reader.h"
#include "isa/target/target_loader.h"
#include "simulator/cli/info_report.h"
#include "simulator/dram/load_target.h"

namespace s2::sim {

std::string run_disasm(const std::string& path, uint64_t data_limit) {
  const isa::Executable exe = isa::load_executable(path);
  isa::DisasmOptions options;
  options.data_limit = data_limit;
  return isa::disassemble(exe, options);
}

std::string run_info(const std::string& path) {
  const std::vector<uint8_t> bytes = isa::read_file_bytes(path);
  isa::FileLayout layout;
  const isa::Executable exe = isa::read_executable(bytes, path, &layout);
  return info_report(exe, layout, path, bytes.size());
}

std::string run_validate_config(const std::string& path) {
  return target::describe_target(target::load_target(path));
}

}  // namespace s2::sim
