#pragma once
// Operator attributes: a small ordered map from name to an int, a float, a list of ints or a
// string. Ordered, so printing and comparison are stable. Which attributes an op takes, and
// their defaults, is declared by its schema in the op registry.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace s2::ir {

using AttrValue = std::variant<int64_t, double, std::vector<int64_t>, std::string>;

enum class AttrKind : uint8_t { Int, Float, Ints, String };
AttrKind attr_kind(const AttrValue& value);
const char* attr_kind_name(AttrKind kind);
std::string attr_value_text(const AttrValue& value);

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> init) : values_(init) {}

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // Typed getters; an absent attribute or one of another kind is an internal error naming it.
  int64_t i(const std::string& name) const;
  double f(const std::string& name) const;
  const std::vector<int64_t>& ints(const std::string& name) const;
  const std::string& s(const std::string& name) const;
  const AttrValue& get(const std::string& name) const;

  Attrs& set(const std::string& name, AttrValue value);
  const std::map<std::string, AttrValue>& values() const { return values_; }

  // "name=value name=value" in name order; floats print exactly (shortest round trip).
  std::string text() const;

  bool operator==(const Attrs& other) const { return values_ == other.values_; }
  bool operator!=(const Attrs& other) const { return values_ != other.values_; }
  bool operator<(const Attrs& other) const { return values_ < other.values_; }

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace s2::ir
