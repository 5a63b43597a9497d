#include "isa/asm/lexer.h"

#include "isa/common/errors.h"

namespace s2::isa::asm_text {
namespace {

bool is_open(char c) {
  return c == '[' || c == '{' || c == '(';
}
bool is_close(char c) {
  return c == ']' || c == '}' || c == ')';
}
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

}  // namespace

std::vector<Statement> lex(const std::string& text, const std::string& file_name) {
  std::vector<Statement> statements;
  Statement current;
  Token token;
  int64_t depth = 0;
  uint64_t line = 1, column = 1;
  uint64_t open_line = 0, open_column = 0;
  bool in_comment = false;
  bool in_quote = false, escaped = false;  // inside a quoted name (names.h)
  uint64_t quote_line = 0, quote_column = 0;

  auto end_token = [&] {
    if (!token.text.empty()) current.tokens.push_back(token);
    token = Token{};
  };
  auto end_statement = [&] {
    end_token();
    if (!current.tokens.empty()) statements.push_back(current);
    current = Statement{};
  };

  for (char c : text) {
    if (in_quote && c != '\n') {
      // Everything up to the closing quote is the name's: blanks, brackets, ';'.
      token.text += c;
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_quote = false;
      }
      ++column;
      continue;
    }
    if (in_quote)
      throw UserError(file_name + ":" + std::to_string(quote_line) + ":" +
                      std::to_string(quote_column) +
                      ": quoted name opened here is not closed on its line");
    if (c == '\n') {
      in_comment = false;
      if (depth == 0) end_statement();
      ++line;
      column = 1;
      continue;
    }
    if (in_comment) {
      ++column;
      continue;
    }
    if (c == ';' && depth == 0) {
      in_comment = true;
    } else if (is_blank(c) && depth == 0) {
      end_token();
    } else if (!is_blank(c)) {
      if (token.text.empty()) {
        token.line = line;
        token.column = column;
        if (current.tokens.empty()) current.line = line;
      }
      if (c == '"') {
        in_quote = true;
        quote_line = line;
        quote_column = column;
      }
      if (is_open(c) && depth++ == 0) {
        open_line = line;
        open_column = column;
      }
      if (is_close(c) && --depth < 0)
        throw UserError(file_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                        ": unmatched '" + std::string(1, c) + "'");
      token.text += c;
    }
    ++column;
  }
  if (in_quote)
    throw UserError(file_name + ":" + std::to_string(quote_line) + ":" +
                    std::to_string(quote_column) +
                    ": quoted name opened here is not closed on its line");
  if (depth > 0)
    throw UserError(file_name + ":" + std::to_string(open_line) + ":" +
                    std::to_string(open_column) + ": bracket opened here is never closed");
  end_statement();
  return statements;
}

}  // namespace s2::isa::asm_text
