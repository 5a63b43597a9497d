#pragma once
// Names in assembly text (the target, tensors, the planner, `from=` op names): a bare word of
// letters, digits and `_ . : / + -`, or a double-quoted string for anything else (ONNX names
// hold spaces, brackets, commas; a name may be empty). In quotes, `\"` and `\\` stand for
// themselves and `\xHH` for any other byte below 0x20 or 0x7f; every other byte is itself.
// The disassembler quotes exactly the names that need it, so every valid executable reads back.

#include <optional>
#include <string>
#include <vector>

namespace s2::isa::asm_text {

// `name` as assembly text: bare when it can be, quoted otherwise.
std::string quote_name(const std::string& name);

// The name a token spells: itself when bare, the unescaped string when it starts with a quote
// (then the whole token must be one well-formed quoted string). Returns nullopt and sets
// `problem` for a malformed quoted string.
std::optional<std::string> unquote_name(const std::string& text, std::string* problem);

// A comma-separated list of names (`from=a,"b,c"`), split outside quotes; each item unquoted.
// Returns nullopt and sets `problem` for a malformed item.
std::optional<std::vector<std::string>> split_names(const std::string& text, std::string* problem);

}  // namespace s2::isa::asm_text
