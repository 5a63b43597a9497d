#pragma once
// Splits S2Train assembly text into statements of tokens. A token runs to the next blank at
// bracket depth zero, so `data=[1, 2, 3]` is one token and a bracketed list may continue over
// several lines; ';' at depth zero starts a comment. A double-quoted name (names.h) is part of
// its token with whatever it holds, up to the closing quote on the same line.

#include <cstdint>
#include <string>
#include <vector>

namespace s2::isa::asm_text {

struct Token {
  std::string text;
  // 1-based; 64-bit, since one line (a tensor's data list) can pass 2^31 characters.
  uint64_t line = 0;
  uint64_t column = 0;
};

struct Statement {
  uint64_t line = 0;
  std::vector<Token> tokens;
};

// Throws UserError "FILE:LINE:COL: ..." on an unbalanced bracket or an unclosed quote.
std::vector<Statement> lex(const std::string& text, const std::string& file_name);

}  // namespace s2::isa::asm_text
