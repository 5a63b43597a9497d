#pragma once
// The exit-code contract shared by s2c and s2sim: 0 success, 1 user error (message on stderr,
// already naming the file and place), 2 internal error (a toolchain bug).

#include <functional>

namespace s2 {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitInternalError = 2;

// Runs `body`, turning exceptions into a message on stderr prefixed by `tool` and the exit
// code above. Never lets an exception escape.
int run_tool(const char* tool, const std::function<int()>& body);

}  // namespace s2
