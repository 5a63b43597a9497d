#include "simulator/dram/load_target.h"

#include "isa/target/target_loader.h"
#include "simulator/dram/dram_registry.h"

namespace s2::target {

TargetDesc load_target(const std::string& path) {
  return load_target(path, sim::dram::dram_backend_schemas());
}

TargetDesc parse_target(const std::string& yaml_text, const std::string& file_name,
                        const std::string& preset_dir) {
  return parse_target(yaml_text, file_name, preset_dir, sim::dram::dram_backend_schemas());
}

}  // namespace s2::target
