#pragma once
// The constraint expressions of a sweep spec (docs/sweep.md, "Constraints"): arithmetic and
// comparisons over a point's configuration values and derived figures, such as
//
//     sram.input.size + sram.weight.size <= 1MiB
//     pe_array.rows * pe_array.cols >= 256 && dram.preset != "HBM2"
//
// Grammar, loosest binding first: `||`; `&&`; `!`; one comparison (< <= > >= == !=); + -;
// * /; unary -; then a number (with an optional binary unit B, KiB, MiB, GiB, TiB), a string
// in double quotes, a name (letters, digits, `_` and `.`, not starting with a digit) or a
// parenthesised expression. Names are looked up when the expression is evaluated. True is 1,
// false 0; strings only compare (== and !=) with strings.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace s2::sim::sweep {

using ExprValue = std::variant<double, std::string>;

// Thrown for a malformed expression or a failed evaluation; `column` is 1-based in the text.
struct ExpressionError {
  std::string problem;
  size_t column = 0;
};

class Expression {
 public:
  // Throws ExpressionError for a malformed text.
  static Expression parse(const std::string& text);

  // The names it reads, in the order written (each once).
  const std::vector<std::string>& names() const { return names_; }

  // Evaluates with `lookup` giving each name's value (nullopt: unknown name). Throws
  // ExpressionError for an unknown name or a type mismatch (a string in arithmetic).
  ExprValue evaluate(
      const std::function<std::optional<ExprValue>(const std::string&)>& lookup) const;

  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  std::vector<std::string> names_;
};

// Whether a value counts as true: a non-zero number (strings are never conditions).
bool truthy(const ExprValue& value, size_t column);

}  // namespace s2::sim::sweep
