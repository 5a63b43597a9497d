#pragma once
// Loading a target with the simulator's DRAM backends (dram_registry.h): what s2c and s2sim
// both call, so a configuration is refused by both at the same place with the same message,
// including a dram mapping that only its backend can judge (an unknown backend, a broken
// JEDEC relation). Pure C++, no SystemC: the compiler links it (library s2_dram).

#include <string>

#include "isa/target/target_desc.h"

namespace s2::target {

// target_loader.h's load_target and parse_target, given dram::dram_backend_schemas().
TargetDesc load_target(const std::string& path);
TargetDesc parse_target(const std::string& yaml_text, const std::string& file_name,
                        const std::string& preset_dir);

}  // namespace s2::target
