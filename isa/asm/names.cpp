#include "isa/asm/names.h"

#include <cctype>

namespace s2::isa::asm_text {
namespace {

bool bare_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == ':' ||
         c == '/' || c == '+' || c == '-';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string quote_name(const std::string& name) {
  bool bare = !name.empty();
  for (char c : name)
    bare = bare && bare_char(c);
  if (bare) return name;
  static const char kHex[] = "0123456789abcdef";
  std::string s = "\"";
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (u < 0x20 || u == 0x7f) {
      s += "\\x";
      s += kHex[u >> 4];
      s += kHex[u & 15];
    } else {
      s += c;
    }
  }
  return s + "\"";
}

std::optional<std::string> unquote_name(const std::string& text, std::string* problem) {
  if (text.empty() || text[0] != '"') return text;
  std::string name;
  for (size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      if (i + 1 != text.size()) {
        *problem = "unexpected text after the closing quote of " + text;
        return std::nullopt;
      }
      return name;
    }
    if (c != '\\') {
      name += c;
      continue;
    }
    if (i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) {
      name += text[++i];
    } else if (i + 3 < text.size() && text[i + 1] == 'x' && hex_value(text[i + 2]) >= 0 &&
               hex_value(text[i + 3]) >= 0) {
      name += static_cast<char>(hex_value(text[i + 2]) * 16 + hex_value(text[i + 3]));
      i += 3;
    } else {
      *problem = "bad escape in " + text + " (known: \\\", \\\\, \\xHH)";
      return std::nullopt;
    }
  }
  *problem = "quoted name " + text + " is never closed";
  return std::nullopt;
}

std::optional<std::vector<std::string>> split_names(const std::string& text, std::string* problem) {
  std::vector<std::string> names;
  std::string item;
  bool quoted = false;
  auto finish = [&]() -> bool {
    const std::optional<std::string> name = unquote_name(item, problem);
    if (!name) return false;
    names.push_back(*name);
    item.clear();
    return true;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '\\' && i + 1 < text.size()) {
      item += c;
      item += text[++i];
      continue;
    }
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      if (!finish()) return std::nullopt;
      continue;
    }
    item += c;
  }
  if (!finish()) return std::nullopt;
  return names;
}

}  // namespace s2::isa::asm_text
