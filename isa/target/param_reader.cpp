#include "isa/target/param_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <unordered_map>
#include <utility>

#include "isa/common/errors.h"

namespace s2::target {

// ---- shared state ------------------------------------------------------------------------

struct ParamReader::Entry {
  std::string key;
  int line = 0;  // of the key
  YAML::Node value;
  bool used = false;
};

struct ParamReader::State {
  std::string file;
  std::string path;
  int line = 1;
  std::vector<Entry> entries;
  std::vector<std::string> known;  // keys the schema asked about, in the order asked
  std::vector<std::shared_ptr<State>> children;
};

namespace {

constexpr const char* kTopLevel = "(top level)";

// yaml-cpp marks are 0-based and -1 for nodes that did not come from the text.
int line_of(const YAML::Mark& mark, int fallback) {
  return mark.line >= 0 ? mark.line + 1 : fallback;
}

// How a node is named in "expected X, got Y" messages.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar: {
      constexpr std::size_t kMaxShown = 40;
      const std::string& text = node.Scalar();
      if (text.size() > kMaxShown) return "\"" + text.substr(0, kMaxShown) + "...\"";
      return "\"" + text + "\"";
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "an empty value";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::string lower(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Optimal string alignment distance, case-insensitive: how far a misspelling is from a key.
std::size_t edit_distance(const std::string& a_text, const std::string& b_text) {
  const std::string a = lower(a_text);
  const std::string b = lower(b_text);
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// Whether `written` is plausibly a misspelling of `meant`: a few edits apart (never all of a
// short word), or a truncation such as `clock` for `clock_mhz`.
// Whether every character of `part` appears in `whole`, in order.
bool is_subsequence(const std::string& part, const std::string& whole) {
  std::size_t at = 0;
  for (char c : whole)
    if (at < part.size() && part[at] == c) ++at;
  return at == part.size();
}

bool resembles(const std::string& written, const std::string& meant) {
  const std::size_t shorter = std::min(written.size(), meant.size());
  const std::size_t distance = edit_distance(written, meant);
  if (distance < shorter && distance <= std::max<std::size_t>(1, shorter / 3)) return true;
  // Up to two letters added or left out ("colums" for "cols", "rws" for "rows").
  const std::string& small = written.size() < meant.size() ? written : meant;
  const std::string& large = written.size() < meant.size() ? meant : written;
  if (small.size() >= 3 && large.size() - small.size() <= 2 && is_subsequence(small, large))
    return true;
  constexpr std::size_t kMinPrefix = 4;
  const std::string a = lower(written);
  const std::string b = lower(meant);
  return shorter >= kMinPrefix && (a.rfind(b, 0) == 0 || b.rfind(a, 0) == 0);
}

// The candidate `word` most plausibly meant, if any resembles it.
std::optional<std::string> closest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (resembles(word, candidate) && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string format_double(double value) {
  return fmt::format("{:.10g}", value);
}

// ---- scalar conversions ------------------------------------------------------------------
// Numbers follow the YAML 1.2 core schema: decimal with an optional sign, or 0x / 0o prefixed.

enum class Parse { ok, malformed, out_of_range };

// Digits of a non-negative number, decimal or 0x / 0o prefixed; no sign.
Parse parse_magnitude(std::string_view text, uint64_t& value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    base = text[1] == 'x' ? 16 : 8;
    text.remove_prefix(2);
  }
  if (text.empty()) return Parse::malformed;
  const char* end = text.data() + text.size();
  const std::from_chars_result result = std::from_chars(text.data(), end, value, base);
  if (result.ptr != end) return Parse::malformed;
  return result.ec == std::errc::result_out_of_range ? Parse::out_of_range : Parse::ok;
}

Parse parse_unsigned(std::string_view text, uint64_t& value) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  return parse_magnitude(text, value);
}

Parse parse_signed(std::string_view text, int64_t& value) {
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  uint64_t magnitude = 0;
  const Parse parsed = parse_magnitude(text, magnitude);
  if (parsed != Parse::ok) return parsed;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (magnitude > limit) return Parse::out_of_range;
  // Two's complement negation through unsigned arithmetic, so -2^63 needs no special case.
  value = static_cast<int64_t>(negative ? ~magnitude + 1 : magnitude);
  return Parse::ok;
}

bool parse_double(std::string_view text, double& value) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const std::from_chars_result result = std::from_chars(text.data(), end, value);
  return result.ec == std::errc() && result.ptr == end && std::isfinite(value);
}

struct Unit {
  std::string_view name;
  unsigned shift;
};
constexpr std::array<Unit, 5> kByteUnits{
    {{"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}}};

// Parses "<whole number>[ ]<unit>" into bytes; `problem` explains a failure.
std::optional<uint64_t> parse_byte_size(const std::string& text, std::string& problem) {
  const std::string expected =
      "expected a byte size such as 1024, 64KiB or 2 MiB, got \"" + text + "\"";
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  std::size_t unit_start = digits;
  while (unit_start < text.size() && text[unit_start] == ' ')
    ++unit_start;
  const std::string_view unit_text = std::string_view(text).substr(unit_start);
  if (digits == 0) {
    problem = expected;
    return std::nullopt;
  }
  if (digits < text.size() && (text[digits] == '.' || text[digits] == ',')) {
    problem = expected + " (the count must be a whole number; use a smaller unit)";
    return std::nullopt;
  }
  uint64_t count = 0;
  const char* digits_end = text.data() + digits;
  if (std::from_chars(text.data(), digits_end, count).ec != std::errc()) {
    problem = "byte size \"" + text + "\" is too large";
    return std::nullopt;
  }
  if (unit_text.empty()) return count;
  for (const Unit& unit : kByteUnits) {
    if (unit_text != unit.name) continue;
    if (count > (std::numeric_limits<uint64_t>::max() >> unit.shift)) {
      problem = "byte size \"" + text + "\" is too large";
      return std::nullopt;
    }
    return count << unit.shift;
  }
  const std::string unit_lower = lower(std::string(unit_text));
  for (std::string_view decimal : {"k", "kb", "m", "mb", "g", "gb", "t", "tb"}) {
    if (unit_lower == decimal) {
      problem = expected + " (\"" + std::string(unit_text) +
                "\" is ambiguous; write binary units: B, KiB, MiB, GiB, TiB)";
      return std::nullopt;
    }
  }
  problem = expected + " (units are B, KiB, MiB, GiB, TiB)";
  return std::nullopt;
}

// Rejects duplicate keys anywhere in the document, before any value is read: yaml-cpp keeps
// both entries, and which one a lookup finds is an accident. Aliases can make the node graph
// cyclic (`&a [*a]`) or exponentially large when unfolded, so the walk skips a node that is
// one of its own ancestors and gives up after a fixed number of nodes.
class KeyChecker {
 public:
  explicit KeyChecker(const std::string& file) : file_(file) {}

  void check(const YAML::Node& node, const std::string& path, int line) {
    for (const YAML::Node& ancestor : ancestors_) {
      if (ancestor.is(node)) return;
    }
    constexpr std::size_t kMaxNodes = 100000;
    if (++visited_ > kMaxNodes) {
      throw_at(file_, 1, kTopLevel,
               "more than " + std::to_string(kMaxNodes) +
                   " values; is an alias repeating a large part of the document?");
    }
    ancestors_.push_back(node);
    if (node.IsSequence()) {
      std::size_t index = 0;
      for (const YAML::Node& item : node) {
        check(item, path + "[" + std::to_string(index++) + "]", line_of(item.Mark(), line));
      }
    } else if (node.IsMap()) {
      std::unordered_map<std::string, int> seen;  // key -> line: linear in the keys
      for (auto it = node.begin(); it != node.end(); ++it) {
        const int key_line = line_of(it->first.Mark(), line);
        if (!it->first.IsScalar()) continue;  // reported when the mapping is read
        const std::string& key = it->first.Scalar();
        const std::string key_path = path.empty() ? key : path + "." + key;
        const auto [earlier, fresh] = seen.emplace(key, key_line);
        if (!fresh) {
          throw_at(file_, key_line, key_path,
                   "duplicate key (first given at line " + std::to_string(earlier->second) + ")");
        }
        check(it->second, key_path, key_line);
      }
    }
    ancestors_.pop_back();
  }

 private:
  const std::string& file_;
  std::vector<YAML::Node> ancestors_;
  std::size_t visited_ = 0;
};

// A file over kMaxConfigBytes, refused before it is parsed (and read no further).
[[noreturn]] void refuse_oversized(const std::string& file) {
  throw UserError(file + ": more than " + format_bytes(kMaxConfigBytes) +
                  " (the limit for a configuration file); is this the right file?");
}

}  // namespace

std::string format_bytes(uint64_t bytes) {
  for (std::size_t i = kByteUnits.size(); i-- > 1;) {
    const uint64_t unit = uint64_t{1} << kByteUnits[i].shift;
    if (bytes >= unit && bytes % unit == 0) {
      return std::to_string(bytes / unit) + " " + std::string(kByteUnits[i].name);
    }
  }
  return std::to_string(bytes) + " B";
}

void throw_at(const std::string& file, int line, const std::string& key_path,
              const std::string& problem) {
  throw UserError(file + ":" + std::to_string(line) + ": " + key_path + ": " + problem);
}

std::optional<uint64_t> parse_byte_size_text(const std::string& text, std::string& problem) {
  return parse_byte_size(text, problem);
}

std::optional<double> parse_number_text(std::string_view text) {
  double value = 0;
  if (!parse_double(text, value)) return std::nullopt;
  return value;
}

std::optional<std::string> closest_name(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  return closest(word, candidates);
}

// ---- values of any kind ------------------------------------------------------------------

std::string ParamValue::text(const std::string& kind) const {
  if (!node_.IsScalar()) fail("expected " + kind + ", got " + describe(node_));
  return node_.Scalar();
}

std::vector<ParamValue> ParamValue::items() const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe(node_));
  std::vector<ParamValue> items;
  for (const YAML::Node& item : node_)
    items.push_back(ParamValue(item, file_, path_ + "[" + std::to_string(items.size()) + "]",
                               line_of(item.Mark(), line_)));
  return items;
}

void ParamValue::fail(const std::string& problem) const {
  throw_at(file_, line_, path_, problem);
}

// ---- construction ------------------------------------------------------------------------

ParamReader::ParamReader(std::shared_ptr<State> state) : state_(std::move(state)) {}

ParamReader ParamReader::from_node(const YAML::Node& node, const std::string& file_name,
                                   const std::string& path, int line) {
  auto state = std::make_shared<State>();
  state->file = file_name;
  state->path = path;
  state->line = line;
  ParamReader reader(state);
  if (!node.IsMap()) return reader;  // callers have checked: null reads as an empty mapping
  for (auto it = node.begin(); it != node.end(); ++it) {
    const int key_line = line_of(it->first.Mark(), line);
    if (!it->first.IsScalar()) {
      throw_at(file_name, key_line, reader.key_path("?"),
               "keys must be plain names, got " + describe(it->first));
    }
    // Duplicates were rejected when the document was parsed (check_keys).
    state->entries.push_back(Entry{it->first.Scalar(), key_line, it->second, false});
  }
  return reader;
}

ParamReader ParamReader::parse(const std::string& yaml_text, const std::string& file_name) {
  if (yaml_text.size() > kMaxConfigBytes) refuse_oversized(file_name);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw UserError(file_name + ":" + std::to_string(line_of(e.mark, 1)) +
                    ": syntax error: " + e.msg);
  }
  if (root.IsNull()) return from_node(root, file_name, "", 1);  // an empty file has no keys
  if (!root.IsMap()) {
    throw_at(file_name, line_of(root.Mark(), 1), kTopLevel,
             "expected a mapping of keys, got " + describe(root));
  }
  const int line = line_of(root.Mark(), 1);
  KeyChecker(file_name).check(root, "", line);
  return from_node(root, file_name, "", line);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open: " + std::strerror(errno));
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw UserError(path + ": cannot open: read failed");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxConfigBytes) refuse_oversized(path);
  return text;
}

ParamReader ParamReader::load(const std::string& path) {
  return parse(read_text_file(path), path);
}

// ---- lookup ------------------------------------------------------------------------------

const std::string& ParamReader::file() const {
  return state_->file;
}
const std::string& ParamReader::path() const {
  return state_->path;
}
int ParamReader::line() const {
  return state_->line;
}

std::string ParamReader::key_path(const std::string& key) const {
  return state_->path.empty() ? key : state_->path + "." + key;
}

bool ParamReader::has(const std::string& key) const {
  return std::any_of(state_->entries.begin(), state_->entries.end(),
                     [&](const Entry& entry) { return entry.key == key; });
}

ParamReader::Entry* ParamReader::take(const std::string& key) {
  std::vector<std::string>& known = state_->known;
  if (std::find(known.begin(), known.end(), key) == known.end()) known.push_back(key);
  for (Entry& entry : state_->entries) {
    if (entry.key == key) {
      entry.used = true;
      return &entry;
    }
  }
  return nullptr;
}

void ParamReader::fail(const std::string& key, const std::string& problem) const {
  int line = state_->line;
  for (const Entry& entry : state_->entries) {
    if (entry.key == key) line = entry.line;
  }
  throw_at(state_->file, line, key_path(key), problem);
}

void ParamReader::fail_missing(const std::string& key) const {
  std::string problem = "missing required key";
  // A required key is usually missing because it is misspelt; point at the likely culprit.
  for (const Entry& entry : state_->entries) {
    if (entry.used || entry.key == key) continue;
    if (resembles(entry.key, key)) {
      problem += " (is \"" + entry.key + "\" at line " + std::to_string(entry.line) +
                 " a misspelling of \"" + key + "\"?)";
      break;
    }
  }
  throw_at(state_->file, state_->line, key_path(key), problem);
}

void ParamReader::record_locations(KeyLocations& out, const std::string& prefix) const {
  std::vector<const State*> pending{state_.get()};
  while (!pending.empty()) {
    const State* state = pending.back();
    pending.pop_back();
    const std::string base = prefix.empty()        ? state->path
                             : state->path.empty() ? prefix
                                                   : prefix + "." + state->path;
    if (!base.empty()) out[base] = {state->file, state->line};
    for (const Entry& entry : state->entries)
      out[base.empty() ? entry.key : base + "." + entry.key] = {state->file, entry.line};
    for (const auto& child : state->children)
      pending.push_back(child.get());
  }
}

void ParamReader::finish() const {
  // Every unknown key of the whole tree, reported at once in file order, one line each.
  std::vector<std::pair<const Entry*, const State*>> unknown;
  std::vector<const State*> pending{state_.get()};
  while (!pending.empty()) {
    const State* state = pending.back();
    pending.pop_back();
    for (const Entry& entry : state->entries)
      if (!entry.used) unknown.emplace_back(&entry, state);
    for (const auto& child : state->children)
      pending.push_back(child.get());
  }
  if (unknown.empty()) return;
  std::stable_sort(unknown.begin(), unknown.end(),
                   [](const auto& a, const auto& b) { return a.first->line < b.first->line; });
  std::string message;
  for (const auto& [entry, owner] : unknown) {
    std::string problem = "unknown key";
    if (std::optional<std::string> meant = closest(entry->key, owner->known))
      problem += "; did you mean \"" + *meant + "\"?";
    problem += owner->known.empty() ? "; this mapping takes no keys"
                                    : "; known keys: " + join(owner->known);
    const std::string path = owner->path.empty() ? entry->key : owner->path + "." + entry->key;
    if (!message.empty()) message += "\n";
    message += owner->file + ":" + std::to_string(entry->line) + ": " + path + ": " + problem;
  }
  throw UserError(message);
}

// ---- nested mappings ---------------------------------------------------------------------

std::optional<ParamReader> ParamReader::optional_child(const std::string& key) {
  const Entry* entry = take(key);
  if (entry == nullptr) return std::nullopt;
  if (!entry->value.IsMap() && !entry->value.IsNull()) {
    fail(key, "expected a mapping of keys, got " + describe(entry->value));
  }
  ParamReader child = from_node(entry->value, state_->file, key_path(key), entry->line);
  state_->children.push_back(child.state_);
  return child;
}

std::optional<ParamValue> ParamReader::value(const std::string& key) {
  const Entry* entry = take(key);
  if (entry == nullptr) return std::nullopt;
  return ParamValue(entry->value, state_->file, key_path(key), entry->line);
}

ParamReader ParamReader::mapping(const ParamValue& value) {
  if (!value.is_mapping()) value.fail("expected a mapping of keys, got " + describe(value.node_));
  // Duplicate keys anywhere in the document were rejected when it was parsed.
  ParamReader child = from_node(value.node_, value.file(), value.path(), value.line());
  state_->children.push_back(child.state_);
  return child;
}

ParamReader ParamReader::child(const std::string& key) {
  std::optional<ParamReader> child = optional_child(key);
  if (!child) fail_missing(key);
  return *child;
}

ParamReader ParamReader::child_or_empty(const std::string& key) {
  if (std::optional<ParamReader> child = optional_child(key)) return *child;
  return from_node(YAML::Node(), state_->file, key_path(key), state_->line);
}

// ---- typed values ------------------------------------------------------------------------

namespace {

// What an integer key takes, stated from the lower end of its range: "a positive integer"
// for a count that starts at 1 reads better than "an integer between 1 and 4294967295".
std::string integer_kind(bool negative_allowed, bool zero_allowed) {
  if (negative_allowed) return "an integer";
  return zero_allowed ? "a non-negative integer" : "a positive integer";
}

}  // namespace

template <typename T>
std::optional<T> ParamReader::read(const std::string& key, const T* min, const T* max) {
  const Entry* entry = take(key);
  if (entry == nullptr) return std::nullopt;
  const YAML::Node& node = entry->value;
  const bool scalar = node.IsScalar();
  const std::string text = scalar ? node.Scalar() : std::string();
  const auto out_of_range = [&](const std::string& low, const std::string& high,
                                const std::string& got) {
    fail(key, "must be between " + low + " and " + high + ", got " + got);
  };

  if constexpr (std::is_same_v<T, std::string>) {
    if (!scalar) fail(key, "expected a string, got " + describe(node));
    return text;
  } else if constexpr (std::is_same_v<T, double>) {
    const double low = min ? *min : std::numeric_limits<double>::lowest();
    const double high = max ? *max : std::numeric_limits<double>::max();
    double value = 0;
    if (!scalar || !parse_double(text, value))
      fail(key, "expected a number, got " + describe(node));
    if (value < low || value > high) {
      out_of_range(format_double(low), format_double(high), format_double(value));
    }
    return value;
  } else if constexpr (std::is_same_v<T, ByteSize>) {
    const uint64_t low = min ? min->bytes : 0;
    const uint64_t high = max ? max->bytes : std::numeric_limits<uint64_t>::max();
    if (!scalar) {
      fail(key, "expected a byte size such as 1024, 64KiB or 2 MiB, got " + describe(node));
    }
    std::string problem;
    const std::optional<uint64_t> bytes = parse_byte_size(text, problem);
    if (!bytes) fail(key, problem);
    if (*bytes < low || *bytes > high) {
      out_of_range(format_bytes(low), format_bytes(high), format_bytes(*bytes));
    }
    return ByteSize{*bytes};
  } else if constexpr (std::is_same_v<T, int64_t>) {
    const int64_t low = min ? *min : std::numeric_limits<int64_t>::min();
    const int64_t high = max ? *max : std::numeric_limits<int64_t>::max();
    int64_t value = 0;
    const Parse parsed = scalar ? parse_signed(text, value) : Parse::malformed;
    if (parsed == Parse::malformed) {
      fail(key, "expected " + integer_kind(low < 0, low <= 0) + ", got " + describe(node));
    }
    if (parsed == Parse::out_of_range || value < low || value > high) {
      out_of_range(std::to_string(low), std::to_string(high), text);
    }
    return value;
  } else {  // uint32_t, uint64_t
    const uint64_t low = min ? *min : 0;
    const uint64_t high = max ? *max : std::numeric_limits<T>::max();
    uint64_t value = 0;
    const bool negative = !text.empty() && text[0] == '-';
    const Parse parsed = scalar && !negative ? parse_unsigned(text, value) : Parse::malformed;
    if (parsed == Parse::malformed) {
      fail(key, "expected " + integer_kind(false, low == 0) + ", got " + describe(node));
    }
    if (parsed == Parse::out_of_range || value < low || value > high) {
      out_of_range(std::to_string(low), std::to_string(high), text);
    }
    return static_cast<T>(value);
  }
}

template std::optional<int64_t> ParamReader::read(const std::string&, const int64_t*,
                                                  const int64_t*);
template std::optional<uint32_t> ParamReader::read(const std::string&, const uint32_t*,
                                                   const uint32_t*);
template std::optional<uint64_t> ParamReader::read(const std::string&, const uint64_t*,
                                                   const uint64_t*);
template std::optional<double> ParamReader::read(const std::string&, const double*, const double*);
template std::optional<std::string> ParamReader::read(const std::string&, const std::string*,
                                                      const std::string*);
template std::optional<ByteSize> ParamReader::read(const std::string&, const ByteSize*,
                                                   const ByteSize*);

// ---- enumerations ------------------------------------------------------------------------

namespace {

std::vector<std::string> to_strings(const std::string_view* names, std::size_t count) {
  return std::vector<std::string>(names, names + count);
}

std::optional<std::size_t> find_name(const std::string& text, const std::string_view* names,
                                     std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (names[i] == text) return i;
  }
  return std::nullopt;
}

std::string unknown_value(const std::string& text, const std::string_view* names,
                          std::size_t count) {
  const std::vector<std::string> allowed = to_strings(names, count);
  std::string problem = "unknown value \"" + text + "\"";
  if (std::optional<std::string> meant = closest(text, allowed)) {
    problem += "; did you mean \"" + *meant + "\"?";
  }
  return problem + "; allowed: " + join(allowed);
}

}  // namespace

std::optional<std::size_t> ParamReader::choose_optional(const std::string& key,
                                                        const std::string_view* names,
                                                        std::size_t count) {
  const std::optional<std::string> text = read<std::string>(key, nullptr, nullptr);
  if (!text) return std::nullopt;
  const std::optional<std::size_t> index = find_name(*text, names, count);
  if (!index) fail(key, unknown_value(*text, names, count));
  return index;
}

std::size_t ParamReader::choose_required(const std::string& key, const std::string_view* names,
                                         std::size_t count) {
  const std::optional<std::size_t> index = choose_optional(key, names, count);
  if (!index) fail_missing(key);
  return *index;
}

std::optional<std::vector<std::size_t>> ParamReader::choose_list(const std::string& key,
                                                                 const std::string_view* names,
                                                                 std::size_t count) {
  const Entry* entry = take(key);
  if (entry == nullptr) return std::nullopt;
  const YAML::Node& node = entry->value;
  if (node.IsNull()) return std::vector<std::size_t>{};
  if (!node.IsSequence()) {
    fail(key, "expected a list such as [" + std::string(names[0]) + "], got " + describe(node));
  }
  std::vector<std::size_t> indices;
  std::size_t position = 0;
  for (const YAML::Node& item : node) {
    const std::string item_path = key_path(key) + "[" + std::to_string(position++) + "]";
    const int item_line = line_of(item.Mark(), entry->line);
    if (!item.IsScalar()) {
      throw_at(state_->file, item_line, item_path, "expected a name, got " + describe(item));
    }
    const std::optional<std::size_t> index = find_name(item.Scalar(), names, count);
    if (!index)
      throw_at(state_->file, item_line, item_path, unknown_value(item.Scalar(), names, count));
    if (std::find(indices.begin(), indices.end(), *index) != indices.end()) {
      throw_at(state_->file, item_line, item_path, "\"" + item.Scalar() + "\" is listed twice");
    }
    indices.push_back(*index);
  }
  return indices;
}

std::string ParamReader::permutation_problem(const std::vector<std::size_t>& given,
                                             const std::string_view* names, std::size_t count) {
  std::string missing;
  for (std::size_t i = 0; i < count; ++i) {
    if (std::find(given.begin(), given.end(), i) == given.end())
      missing += (missing.empty() ? "" : ", ") + std::string(names[i]);
  }
  return "must list each of the " + std::to_string(count) + " names once; missing: " + missing;
}

}  // namespace s2::target
