#pragma once
// Where s2c and s2sim find the shipped accelerator configurations (the default --config and
// its DRAM presets), wherever the binaries are: never a path compiled in.
//
// In order: the directory named by the environment variable S2TRAIN_CONFIG_DIR; then
// `<directory of the running executable>/../share/s2train/configs`, which is where
// `cmake --install` puts them beside `<prefix>/bin/` and where the build tree links them
// (`<build>/share/s2train/configs`, next to `<build>/compiler/` and `<build>/simulator/`). So an
// installed tree keeps working when its prefix moves. None there is a UserError saying where
// it looked and what to do.

#include <string>

namespace s2 {

inline constexpr const char* kConfigDirVariable = "S2TRAIN_CONFIG_DIR";

std::string config_dir();

// config_dir()/s2train_base.yaml: the configuration used when no --config is given.
std::string default_config();

}  // namespace s2
