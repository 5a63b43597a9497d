#pragma once
// The lexical rules of the compiler's text forms (the graph text of printer.h, the program
// text of `s2c opt`), shared by the printers and the parsers so the two cannot drift apart.
//
//   * One statement per line. Blank lines, and lines whose first non-blank characters are
//     `//`, are skipped (lit's RUN and CHECK lines live in such comments).
//   * A name (of a graph, tensor, data node or op) is written bare when it is a non-empty run
//     of letters, digits and `_ . - / $`; any other name is written in double quotes, with
//     `\"` and `\\` for a quote and a backslash inside (ONNX names such as "onnx::Conv_7").
//   * Integers are decimal with an optional '-', or `0x` hexadecimal.
//
// TextCursor walks one statement; every problem it reports is a UserError
// "FILE:LINE:COLUMN: problem" at the column (1-based) where it stands.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace s2::ir {

struct TextLine {
  int number = 0;  // 1-based line in the file
  std::string text;
};

// The statements of `text`, in order, without blank and comment lines or a trailing '\r'.
std::vector<TextLine> split_text_lines(std::string_view text);

bool is_bare_name_char(char c);
// `name` as the text forms write it: bare, or quoted.
std::string name_text(std::string_view name);

class TextCursor {
 public:
  TextCursor(std::string file, const TextLine& line);

  int line() const { return line_; }
  // The 1-based column of the next character that is not a blank.
  int column();
  // True when only blanks remain.
  bool at_end();
  // The next non-blank character, or '\0' at the end of the line.
  char peek();
  // Consumes `c` if it is the next non-blank character.
  bool accept(char c);
  // Consumes `word` if it comes next and is not followed by a name character.
  bool accept_word(std::string_view word);
  // Consumes `c` or fails with "expected 'c' <context>".
  void expect(char c, std::string_view context);
  // A bare or quoted name; fails naming `what` ("a tensor name") when there is none.
  std::string name(std::string_view what);
  // A double-quoted string with `\"` and `\\` escapes, possibly empty.
  std::string quoted(std::string_view what);
  // A run of name characters (a keyword, an attribute key); fails naming `what`.
  std::string word(std::string_view what);
  int64_t integer(std::string_view what);
  // "[1,2,3]", possibly empty "[]".
  std::vector<int64_t> integer_list(std::string_view what);
  // The characters up to the next blank, ',' or one of `stops` (a number's text, to be
  // parsed by the caller); fails naming `what` when there are none.
  std::string token(std::string_view what, std::string_view stops);
  // Fails unless only blanks remain: "unexpected '...' <context>".
  void expect_end(std::string_view context);

  [[noreturn]] void fail(const std::string& problem);
  [[noreturn]] void fail_at(int column, const std::string& problem) const;

 private:
  void skip_blanks();

  std::string file_;
  int line_;
  std::string text_;
  size_t at_ = 0;
};

}  // namespace s2::ir
