#include "compiler/ir/text_syntax.h"

#include <cctype>
#include <charconv>

#include "isa/common/errors.h"

namespace s2::ir {

std::vector<TextLine> split_text_lines(std::string_view text) {
  std::vector<TextLine> lines;
  int number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line.substr(first, 2) == "//") continue;
    lines.push_back({number, std::string(line)});
  }
  return lines;
}

bool is_bare_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
         c == '/' || c == '$';
}

std::string name_text(std::string_view name) {
  bool bare = !name.empty();
  for (char c : name)
    bare = bare && is_bare_name_char(c);
  if (bare) return std::string(name);
  std::string s = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s + "\"";
}

TextCursor::TextCursor(std::string file, const TextLine& line)
    : file_(std::move(file)), line_(line.number), text_(line.text) {}

void TextCursor::skip_blanks() {
  while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t'))
    ++at_;
}

int TextCursor::column() {
  skip_blanks();
  return static_cast<int>(at_) + 1;
}

bool TextCursor::at_end() {
  skip_blanks();
  return at_ == text_.size();
}

char TextCursor::peek() {
  skip_blanks();
  return at_ < text_.size() ? text_[at_] : '\0';
}

bool TextCursor::accept(char c) {
  if (peek() != c) return false;
  ++at_;
  return true;
}

bool TextCursor::accept_word(std::string_view word) {
  skip_blanks();
  if (text_.compare(at_, word.size(), word) != 0) return false;
  const size_t end = at_ + word.size();
  if (end < text_.size() && is_bare_name_char(text_[end])) return false;
  at_ = end;
  return true;
}

void TextCursor::expect(char c, std::string_view context) {
  if (!accept(c)) fail("expected '" + std::string(1, c) + "' " + std::string(context));
}

std::string TextCursor::word(std::string_view what) {
  skip_blanks();
  const size_t start = at_;
  while (at_ < text_.size() && is_bare_name_char(text_[at_]))
    ++at_;
  if (at_ == start) fail("expected " + std::string(what));
  return text_.substr(start, at_ - start);
}

std::string TextCursor::quoted(std::string_view what) {
  const int start = column();
  if (!accept('"')) fail("expected " + std::string(what) + " in double quotes");
  std::string s;
  while (at_ < text_.size() && text_[at_] != '"') {
    if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
    s += text_[at_++];
  }
  if (at_ == text_.size())
    fail_at(start, "expected a closing '\"' to end " + std::string(what) + " in quotes");
  ++at_;
  return s;
}

std::string TextCursor::name(std::string_view what) {
  if (peek() != '"') return word(what);
  const int start = column();
  std::string s = quoted(what);
  if (s.empty()) fail_at(start, "expected " + std::string(what) + ", found an empty name");
  return s;
}

std::string TextCursor::token(std::string_view what, std::string_view stops) {
  skip_blanks();
  const size_t start = at_;
  while (at_ < text_.size() && text_[at_] != ' ' && text_[at_] != '\t' && text_[at_] != ',' &&
         stops.find(text_[at_]) == std::string_view::npos)
    ++at_;
  if (at_ == start) fail("expected " + std::string(what));
  return text_.substr(start, at_ - start);
}

int64_t TextCursor::integer(std::string_view what) {
  const int start = column();
  const std::string text = token(what, "[](){}=#+.");
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* first = text.data() + (hex ? 2 : 0);
  int64_t v = 0;
  const auto r = std::from_chars(first, text.data() + text.size(), v, hex ? 16 : 10);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || (hex && *first == '-'))
    fail_at(start, "expected " + std::string(what) + ", found '" + text + "'");
  return v;
}

std::vector<int64_t> TextCursor::integer_list(std::string_view what) {
  expect('[', "to open " + std::string(what));
  std::vector<int64_t> values;
  if (accept(']')) return values;
  do {
    values.push_back(integer("an integer in " + std::string(what)));
  } while (accept(','));
  expect(']', "to close " + std::string(what));
  return values;
}

void TextCursor::expect_end(std::string_view context) {
  if (at_end()) return;
  const size_t end = text_.find_first_of(" \t", at_);
  fail("unexpected '" + text_.substr(at_, end == std::string::npos ? end : end - at_) + "' " +
       std::string(context));
}

void TextCursor::fail(const std::string& problem) {
  fail_at(column(), problem);
}

void TextCursor::fail_at(int column, const std::string& problem) const {
  throw UserError(file_ + ":" + std::to_string(line_) + ":" + std::to_string(column) + ": " +
                  problem);
}

}  // namespace s2::ir
