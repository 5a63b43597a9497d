#pragma once
// Runs a shell command the way a user would, for end-to-end tests of s2c, s2sim and scripts.

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace s2::test {

struct CommandResult {
  int status = -1;  // exit status; -1 when the command did not exit normally
  std::string out;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    r.out.append(buffer, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// 'text', for a path in a command line.
inline std::string shell_quoted(const std::string& text) {
  return "'" + text + "'";
}

}  // namespace s2::test
