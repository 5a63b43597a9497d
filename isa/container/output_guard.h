#pragma once
// Protects what the user gave from being overwritten by a tool's output file.

#include <string>
#include <vector>

namespace s2::isa {

// Throws UserError when writing `output` would destroy something the user did not ask to
// replace: when it is one of `inputs`, or when it exists and is not an S2Train executable
// (unless `force`). Overwriting an earlier S2Train executable is the normal rebuild case.
void guard_executable_output(const std::string& output, const std::vector<std::string>& inputs,
                             bool force);

}  // namespace s2::isa
