#include "compiler/ir/attrs.h"

#include <charconv>

#include "isa/common/errors.h"

namespace s2::ir {

AttrKind attr_kind(const AttrValue& value) {
  return static_cast<AttrKind>(value.index());
}

const char* attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
      return "int";
    case AttrKind::Float:
      return "float";
    case AttrKind::Ints:
      return "ints";
    case AttrKind::String:
      return "string";
  }
  return "?";
}

std::string attr_value_text(const AttrValue& value) {
  switch (attr_kind(value)) {
    case AttrKind::Int:
      return std::to_string(std::get<int64_t>(value));
    case AttrKind::Float: {
      char buffer[64];
      const auto r = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value));
      std::string s(buffer, r.ptr);
      // Keep floats recognisable as floats in the dump: 1 -> 1.0.
      if (s.find_first_of(".eni") == std::string::npos) s += ".0";
      return s;
    }
    case AttrKind::Ints: {
      std::string s = "[";
      const auto& v = std::get<std::vector<int64_t>>(value);
      for (size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + std::to_string(v[i]);
      return s + "]";
    }
    case AttrKind::String: {
      // Quoted like the text forms' names (text_syntax.h), so the graph parser reads it back.
      std::string s = "\"";
      for (char c : std::get<std::string>(value)) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
      }
      return s + "\"";
    }
  }
  return "?";
}

const AttrValue& Attrs::get(const std::string& name) const {
  const auto it = values_.find(name);
  S2_CHECK(it != values_.end(), "attribute '" + name + "' is not set");
  return it->second;
}

int64_t Attrs::i(const std::string& name) const {
  const AttrValue& v = get(name);
  S2_CHECK(attr_kind(v) == AttrKind::Int, "attribute '" + name + "' is not an int");
  return std::get<int64_t>(v);
}

double Attrs::f(const std::string& name) const {
  const AttrValue& v = get(name);
  S2_CHECK(attr_kind(v) == AttrKind::Float, "attribute '" + name + "' is not a float");
  return std::get<double>(v);
}

const std::vector<int64_t>& Attrs::ints(const std::string& name) const {
  const AttrValue& v = get(name);
  S2_CHECK(attr_kind(v) == AttrKind::Ints, "attribute '" + name + "' is not an int list");
  return std::get<std::vector<int64_t>>(v);
}

const std::string& Attrs::s(const std::string& name) const {
  const AttrValue& v = get(name);
  S2_CHECK(attr_kind(v) == AttrKind::String, "attribute '" + name + "' is not a string");
  return std::get<std::string>(v);
}

Attrs& Attrs::set(const std::string& name, AttrValue value) {
  values_[name] = std::move(value);
  return *this;
}

std::string Attrs::text() const {
  std::string s;
  for (const auto& [name, value] : values_)
    s += (s.empty() ? "" : " ") + name + "=" + attr_value_text(value);
  return s;
}

}  // namespace s2::ir
