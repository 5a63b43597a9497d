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
#include <string_view>

namespace s2 {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

namespace detail {
// Throws InternalError("MESSAGE (internal check 'CONDITION' failed at FILE:LINE)"). Out of
// line and cold, so the checks' call sites stay small.
[[noreturn, gnu::noinline, gnu::cold]] inline void check_failed(const char* file, int line,
                                                                const char* condition,
                                                                const std::string& message) {
  // A compiler cache may hand the compiler build-relative paths ("../../isa/x.cpp").
  std::string_view path(file);
  while (path.substr(0, 3) == "../" || path.substr(0, 2) == "./")
    path.remove_prefix(path[0] == '.' && path[1] == '/' ? 2 : 3);
  throw InternalError(message + " (internal check '" + condition + "' failed at " +
                      std::string(path) + ":" + std::to_string(line) + ")");
}
}  // namespace detail

}  // namespace s2

// S2_CHECK(condition, message): an invariant of our own code (never a check of user input;
// that is a UserError). When `condition` is false, throws InternalError with `message`, the
// condition's text and the source file and line. `message` (anything a std::string can be
// built from) is evaluated only on failure, so a check that passes costs one branch, even in
// hot paths (Halide's internal_assert is the model). __FILE__ is made project-relative: the build
// maps the source directory away (-fmacro-prefix-map in the top CMakeLists.txt) and leading
// "../" of build-relative paths are dropped.
#define S2_CHECK(condition, message)                                         \
  do {                                                                       \
    if (__builtin_expect(!(condition), 0))                                   \
      ::s2::detail::check_failed(__FILE__, __LINE__, #condition, (message)); \
  } while (false)
