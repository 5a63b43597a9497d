#pragma once
// The s2sim subcommands, callable without the command line (tests use them directly).

#include <cstdint>
#include <string>

namespace s2::sim {

// Loads and validates the executable, returns its assembly listing.
// `data_limit` as in isa::DisasmOptions (0: print all initial data).
std::string run_disasm(const std::string& path, uint64_t data_limit);

// Loads and validates the executable, returns the `s2sim info` report.
std::string run_info(const std::string& path);

// Loads and checks a target description, returns what was understood.
std::string run_validate_config(const std::string& path);

}  // namespace s2::sim
