#pragma once
// The two kinds of failure every S2Train tool distinguishes (STYLE.md, "Errors").
//
// UserError: the input is wrong (a malformed .bin, YAML, assembly or flag). The message says
// what is wrong and where (file:line, section:offset, instruction index) so the user can fix
// it; the command-line tools print it and exit with status 1.
//
// InternalError: a bug in the toolchain itself. The message names the object it was looking
// at; the tools exit with status 2.

#include <stdexcept>
#include <string>

namespace s2 {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

// Throws InternalError with `message` when `condition` is false. For invariants of our own
// code only; never for checking user input.
inline void internal_check(bool condition, const std::string& message) {
  if (!condition) throw InternalError(message);
}

}  // namespace s2
