#include "compiler/ir/parse_terms.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "isa/common/float_text.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {
namespace {

std::string known_dtypes() {
  std::string s;
#define S2_DTYPE(Id, code, name, bytes) s += std::string(s.empty() ? "" : ", ") + (name);
#include "isa/encoding/isa.def"
  return s;
}

std::string known_roles() {
  std::string s;
  for (TensorRole r : isa::all_roles())
    s += std::string(s.empty() ? "" : ", ") + isa::role_name(r);
  return s;
}

float f32_value(TextCursor& c, const std::string& what) {
  const int column = c.column();
  const std::string text = c.token("a value of " + what, "[]()");
  const std::optional<float> v = parse_f32(text);
  if (!v) c.fail_at(column, "expected an f32 value of " + what + ", found '" + text + "'");
  return *v;
}

int64_t int_value(TextCursor& c, const std::string& what, int64_t lo, int64_t hi) {
  const int column = c.column();
  const int64_t v = c.integer("an integer value of " + what);
  if (v < lo || v > hi)
    c.fail_at(column, "value " + std::to_string(v) + " of " + what + " is outside [" +
                          std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

template <typename T, typename Read>
std::vector<T> values_of(TextCursor& c, size_t n, const std::string& what, Read read) {
  const int column = c.column();
  if (c.accept_word("fill")) {
    c.expect('(', "after 'fill'");
    const T v = static_cast<T>(read());
    c.expect(')', "to close 'fill('");
    return std::vector<T>(n, v);
  }
  c.expect('[', "or 'fill(' to start the contents of " + what);
  std::vector<T> values;
  if (!c.accept(']')) {
    do {
      values.push_back(static_cast<T>(read()));
    } while (c.accept(','));
    c.expect(']', "to close the contents of " + what);
  }
  if (values.size() != n)
    c.fail_at(column, what + " has " + std::to_string(n) + " element(s), found " +
                          std::to_string(values.size()) + " value(s)");
  return values;
}

AttrValue attr_value(TextCursor& c, AttrKind kind, const std::string& what) {
  switch (kind) {
    case AttrKind::Int:
      return c.integer("an int for " + what);
    case AttrKind::Float: {
      const int column = c.column();
      const std::string text = c.token("a float for " + what, "#");
      double v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec != std::errc() || r.ptr != text.data() + text.size())
        c.fail_at(column, "expected a float for " + what + ", found '" + text + "'");
      return v;
    }
    case AttrKind::Ints:
      return c.integer_list("the int list of " + what);
    case AttrKind::String:
      return c.quoted("the string of " + what);
  }
  return int64_t{0};
}

}  // namespace

TypeTerm parse_type(TextCursor& c) {
  TypeTerm t;
  t.column = c.column();
  const std::string name = c.word("an element type (" + known_dtypes() + ")");
  const std::optional<DType> dtype = isa::dtype_from_name(name);
  if (!dtype) c.fail_at(t.column, "unknown element type '" + name + "'; known: " + known_dtypes());
  t.dtype = *dtype;
  const int shape_column = c.column();
  t.shape = c.integer_list("the shape");
  int64_t numel = 1;
  for (int64_t d : t.shape) {
    if (d <= 0) c.fail_at(shape_column, "dimensions must be positive, found " + ints_text(t.shape));
    if (d > kMaxElements / numel)
      c.fail_at(shape_column, "the shape " + ints_text(t.shape) + " has more than " +
                                  std::to_string(kMaxElements) + " elements");
    numel *= d;
  }
  return t;
}

ViewTerm parse_view(TextCursor& c) {
  ViewTerm v;
  v.present = true;
  v.column = c.column();
  c.expect('{', "to open the view");
  while (!c.accept('}')) {
    const int column = c.column();
    const std::string key = c.word("strides=, offset=, data= or '}'");
    c.expect('=', "after '" + key + "'");
    const bool repeated = (key == "strides" && v.strides) || (key == "offset" && v.offset) ||
                          (key == "data" && v.data);
    if (repeated) c.fail_at(column, "'" + key + "' given twice in the view");
    if (key == "strides") {
      v.strides = c.integer_list("the strides");
    } else if (key == "offset") {
      v.offset = c.integer("the offset");
    } else if (key == "data") {
      v.data_column = c.column();
      c.expect('%', "to start the data node's name");
      v.data = c.name("the data node's name");
    } else {
      c.fail_at(column, "unknown view part '" + key + "'; known: strides, offset, data");
    }
  }
  return v;
}

TensorRole parse_role(TextCursor& c) {
  const int column = c.column();
  const std::string name = c.word("a role (" + known_roles() + ")");
  const std::optional<TensorRole> role = isa::role_from_name(name);
  if (!role) c.fail_at(column, "unknown role '" + name + "'; known: " + known_roles());
  return *role;
}

HostArray parse_values(TextCursor& c, const TypeTerm& type, const std::string& what) {
  const size_t n = static_cast<size_t>(shape_numel(type.shape));
  switch (type.dtype) {
    case DType::F32:
      return HostArray(values_of<float>(c, n, what, [&] { return f32_value(c, what); }));
    case DType::I32:
      return HostArray(values_of<int32_t>(c, n, what, [&] {
        return int_value(c, what, std::numeric_limits<int32_t>::min(),
                         std::numeric_limits<int32_t>::max());
      }));
    case DType::U8: {
      HostArray a(DType::U8, n);
      a.u8() = values_of<uint8_t>(c, n, what, [&] { return int_value(c, what, 0, 255); });
      return a;
    }
    case DType::BF16:
    case DType::F16: {
      // Literals of a 16-bit type round to it, as the assembler reads them.
      std::vector<float> v = values_of<float>(c, n, what, [&] { return f32_value(c, what); });
      for (float& x : v)
        x = numerics::round_to(type.dtype, x);
      return HostArray(std::move(v), type.dtype);
    }
  }
  return HostArray();
}

OpType parse_op_type(TextCursor& c) {
  const int column = c.column();
  const std::string name = c.word("an op type");
  const std::optional<OpType> type = op_type_from_name(name);
  if (!type) {
    std::string known;
    for (size_t i = 0; i < kNumOpTypes; ++i)
      known += (i ? ", " : "") + std::string(op_type_name(static_cast<OpType>(i)));
    c.fail_at(column, "unknown op type '" + name + "'; known: " + known);
  }
  return *type;
}

Attrs parse_attrs(TextCursor& c, const OpSchema& schema, int op_column) {
  const std::string type(op_type_name(schema.type));
  Attrs attrs;
  while (!c.at_end() && c.peek() != '#') {
    const int column = c.column();
    const std::string key = c.word("an attribute NAME=VALUE or '#'");
    const auto spec = std::find_if(schema.attrs.begin(), schema.attrs.end(),
                                   [&](const AttrSpec& s) { return s.name == key; });
    if (spec == schema.attrs.end()) {
      std::string known;
      for (const AttrSpec& s : schema.attrs)
        known += (known.empty() ? "" : ", ") + s.name;
      c.fail_at(column, "unknown attribute '" + key + "' of " + type +
                            "; known: " + (known.empty() ? "none" : known));
    }
    if (attrs.has(key)) c.fail_at(column, "attribute '" + key + "' given twice");
    c.expect('=', "after the attribute's name");
    attrs.set(key, attr_value(c, spec->kind, "attribute '" + key + "' of " + type));
  }
  for (const AttrSpec& spec : schema.attrs) {
    if (attrs.has(spec.name)) continue;
    if (!spec.default_value)
      c.fail_at(op_column, "required attribute '" + spec.name + "' of " + type + " is missing");
    attrs.set(spec.name, *spec.default_value);
  }
  return attrs;
}

OpCategory parse_category(TextCursor& c) {
  const int column = c.column();
  const std::string name = c.word("the op's category");
  const std::optional<OpCategory> category = op_category_from_name(name);
  if (!category)
    c.fail_at(column, "unknown op category '" + name +
                          "'; known: forward, activation_grad, weight_grad, weight_update");
  return *category;
}

}  // namespace s2::ir
