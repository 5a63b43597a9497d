#pragma once
// Splits S2Train assembly text into statements of tokens. A token runs to the next blank at
// bracket depth zero, so `data=[1, 2, 3]` is one token and a bracketed list may continue over
// several lines; ';' at depth zero starts a comment. A double-quoted name (names.h) is part of
// its token with whatever it holds, up to the closing quote on the same line.

#include <string>
#include <vector>

namespace s2::isa::asm_text {

struct Token {
  std::string text;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

struct Statement {
  int line = 0;
  std::vector<Token> tokens;
};

// Throws UserError "FILE:LINE:COL: ..." on an unbalanced bracket or an unclosed quote.
std::vector<Statement> lex(const std::string& text, const std::string& file_name);

}  // namespace s2::isa::asm_text
