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
#include "isa/target/param_text.h"

namespace s2::target {

// ---- shared state ------------------------------------------------------------------------

struct ParamReader::Entry {
  std::string key;
  int line = 0;  // of the key
  YAML::Node value;
  bool used = false;
};

// The problems of the files read together (param_reader.h, "Every problem at once").
struct detail::ProblemList {
  struct Item {
    std::size_t file;  // index in `files`: files sort in the order they were loaded
    int line;          // 0 for a problem with the file as a whole
    std::string text;  // the whole line: `FILE:LINE: PATH: problem`
  };
  bool collect = false;
  std::vector<std::string> files;
  std::vector<Item> items;

  std::size_t file_index(const std::string& file) {
    const auto it = std::find(files.begin(), files.end(), file);
    if (it != files.end()) return static_cast<std::size_t>(it - files.begin());
    files.push_back(file);
    return files.size() - 1;
  }
  // Records a problem; when not collecting, throws it at once.
  void add(const std::string& file, int line, const std::string& path, const std::string& text) {
    record(file, line, path, text);
    if (!collect) raise();
  }
  void add_line(const std::string& file, int line, std::string text) {
    items.push_back(Item{file_index(file), line, std::move(text)});
    if (!collect) raise();
  }
  // Records a problem without throwing, whatever the mode (one of several reported together).
  void record(const std::string& file, int line, const std::string& path, const std::string& text) {
    items.push_back(Item{file_index(file), line,
                         file + ":" + std::to_string(line) + ": " + path + ": " + text});
  }
  // Throws ConfigProblems listing every problem, by file and line. When not collecting the
  // list starts afresh (a caller may catch the error and read on).
  [[noreturn]] void raise() {
    std::vector<const Item*> sorted;
    for (const Item& item : items)
      sorted.push_back(&item);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Item* a, const Item* b) {
      return a->file != b->file ? a->file < b->file : a->line < b->line;
    });
    std::string message;
    for (const Item* item : sorted)
      message += (message.empty() ? "" : "\n") + item->text;
    if (!collect) items.clear();
    throw ConfigProblems(message);
  }
};

struct ParamReader::State {
  std::string file;
  std::string path;
  int line = 1;
  std::vector<Entry> entries;
  // Each key's place in `entries`, so that looking a key up costs the same in a mapping of
  // 100000 keys (a 1 MiB file can hold that many) as in one of ten.
  std::unordered_map<std::string, std::size_t> index;
  std::vector<std::string> known;  // keys the schema asked about, in the order asked
  std::vector<std::shared_ptr<State>> children;
  std::shared_ptr<Problems> problems;
  bool silent = false;     // a missing or malformed mapping read on: nothing is recorded
  bool flawed = false;     // a problem was recorded here: relations are not checked
  bool abandoned = false;  // a fail() ended the reading here: unread keys are not unknown
  // Missing keys recorded while collecting (key, index in problems->items): the key they may
  // be a misspelling of is named once the unknown keys are known (record_unknown_keys).
  std::vector<std::pair<std::string, std::size_t>> missing;
};

namespace {

using text::closest;
using text::format_double;
using text::Parse;
using text::parse_byte_size;
using text::parse_double;
using text::parse_signed;
using text::parse_unsigned;
using text::resembles;

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

// Rejects duplicate keys anywhere in the document, before any value is read: yaml-cpp keeps
// both entries, and which one a lookup finds is an accident. Aliases can make the node graph
// cyclic (`&a [*a]`) or exponentially large when unfolded, so the walk skips a node that is
// one of its own ancestors and gives up after a fixed number of nodes.
class KeyChecker {
 public:
  KeyChecker(const std::string& file, detail::ProblemList& problems)
      : file_(file), problems_(problems) {}

  void check(const YAML::Node& node, const std::string& path, int line) {
    for (const YAML::Node& ancestor : ancestors_) {
      if (ancestor.is(node)) return;
    }
    constexpr std::size_t kMaxNodes = 100000;
    if (++visited_ > kMaxNodes) {
      problems_.add(file_, 1, kTopLevel,
                    "more than " + std::to_string(kMaxNodes) +
                        " values; is an alias repeating a large part of the document?");
      problems_.raise();
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
          // The first entry is the one read (ParamReader::from_node).
          problems_.add(
              file_, key_line, key_path,
              "duplicate key (first given at line " + std::to_string(earlier->second) + ")");
          continue;
        }
        check(it->second, key_path, key_line);
      }
    }
    ancestors_.pop_back();
  }

 private:
  const std::string& file_;
  detail::ProblemList& problems_;
  std::vector<YAML::Node> ancestors_;
  std::size_t visited_ = 0;
};

// A file over kMaxConfigBytes, refused before it is parsed (and read no further).
std::string oversized(const std::string& file) {
  return file + ": more than " + format_bytes(kMaxConfigBytes) +
         " (the limit for a configuration file); is this the right file?";
}

}  // namespace

void throw_at(const std::string& file, int line, const std::string& key_path,
              const std::string& problem) {
  throw UserError(file + ":" + std::to_string(line) + ": " + key_path + ": " + problem);
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
                               line_of(item.Mark(), line_), problems_));
  return items;
}

void ParamValue::fail(const std::string& problem) const {
  problems_->add(file_, line_, path_, problem);
  problems_->raise();
}

// ---- construction ------------------------------------------------------------------------

ParamReader::ParamReader(std::shared_ptr<State> state) : state_(std::move(state)) {}

ParamReader ParamReader::from_node(const YAML::Node& node, const std::string& file_name,
                                   const std::string& path, int line,
                                   std::shared_ptr<Problems> problems) {
  auto state = std::make_shared<State>();
  state->file = file_name;
  state->path = path;
  state->line = line;
  state->problems = std::move(problems);
  ParamReader reader(state);
  if (!node.IsMap()) return reader;  // callers have checked: null reads as an empty mapping
  for (auto it = node.begin(); it != node.end(); ++it) {
    const int key_line = line_of(it->first.Mark(), line);
    if (!it->first.IsScalar()) {
      state->problems->add(file_name, key_line, reader.key_path("?"),
                           "keys must be plain names, got " + describe(it->first));
      continue;
    }
    // A duplicate was recorded when the document was parsed (KeyChecker); the first counts.
    if (!state->index.emplace(it->first.Scalar(), state->entries.size()).second) continue;
    state->entries.push_back(Entry{it->first.Scalar(), key_line, it->second, false});
  }
  return reader;
}

ParamReader ParamReader::parse_into(const std::string& yaml_text, const std::string& file_name,
                                    std::shared_ptr<Problems> problems) {
  problems->file_index(file_name);  // the file's place in the order of the report
  if (yaml_text.size() > kMaxConfigBytes) {
    problems->add_line(file_name, 0, oversized(file_name));
    problems->raise();
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    const int line = line_of(e.mark, 1);
    problems->add_line(file_name, line,
                       file_name + ":" + std::to_string(line) + ": syntax error: " + e.msg);
    problems->raise();
  }
  if (root.IsNull()) return from_node(root, file_name, "", 1, problems);  // no keys
  if (!root.IsMap()) {
    problems->add(file_name, line_of(root.Mark(), 1), kTopLevel,
                  "expected a mapping of keys, got " + describe(root));
    problems->raise();
  }
  const int line = line_of(root.Mark(), 1);
  KeyChecker(file_name, *problems).check(root, "", line);
  return from_node(root, file_name, "", line, problems);
}

ParamReader ParamReader::parse(const std::string& yaml_text, const std::string& file_name) {
  return parse_into(yaml_text, file_name, std::make_shared<Problems>());
}

ParamReader ParamReader::collecting(const std::string& yaml_text, const std::string& file_name) {
  auto problems = std::make_shared<Problems>();
  problems->collect = true;
  return parse_into(yaml_text, file_name, problems);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open: " + std::strerror(errno));
  // In chunks, so that the text takes what the file holds (a config is a few KiB; a buffer of
  // the whole limit cost a 1 MiB allocation and fill per file), and no more than the limit and
  // one chunk is read from a file that has no end (a device, a pipe).
  std::string text;
  char chunk[16 * 1024];
  while (text.size() <= kMaxConfigBytes && in) {
    in.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw UserError(path + ": cannot open: read failed");
  if (text.size() > kMaxConfigBytes) throw UserError(oversized(path));
  return text;
}

ParamReader ParamReader::load(const std::string& path) {
  return parse(read_text_file(path), path);
}

ParamReader ParamReader::load_beside(const std::string& path) const {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const UserError& e) {
    state_->problems->add_line(path, 0, e.what());
    state_->problems->raise();
  }
  return parse_into(text, path, state_->problems);
}

bool ParamReader::collects() const {
  return state_->problems->collect;
}

std::size_t ParamReader::problem_count() const {
  return state_->problems->items.size();
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
  return state_->index.count(key) != 0;
}

ParamReader::Entry* ParamReader::take(const std::string& key) {
  std::vector<std::string>& known = state_->known;
  if (std::find(known.begin(), known.end(), key) == known.end()) known.push_back(key);
  const auto found = state_->index.find(key);
  if (found == state_->index.end()) return nullptr;
  Entry& entry = state_->entries[found->second];
  entry.used = true;
  return &entry;
}

int ParamReader::key_line(const std::string& key) const {
  const auto found = state_->index.find(key);
  return found == state_->index.end() ? state_->line : state_->entries[found->second].line;
}

bool ParamReader::record(const std::string& key, const std::string& problem, bool relation) const {
  State& state = *state_;
  if (state.silent || state.abandoned || (relation && state.flawed)) return false;
  state.flawed = true;
  state.problems->add(state.file, key_line(key), key_path(key), problem);
  return true;
}

void ParamReader::problem(const std::string& key, const std::string& problem) const {
  record(key, problem, false);
}

void ParamReader::relation_problem(const std::string& key, const std::string& problem) const {
  record(key, problem, true);
}

void ParamReader::fail(const std::string& key, const std::string& problem) const {
  record(key, problem, false);
  state_->problems->raise();
}

namespace {

// " (is "colums" at line 3 a misspelling of "cols"?)" for the first entry of `entries` that
// nobody read and that resembles `key`, or "".
template <typename Entries>
std::string misspelling_hint(const Entries& entries, const std::string& key) {
  for (const auto& entry : entries) {
    if (entry.used || entry.key == key || !resembles(entry.key, key)) continue;
    return " (is \"" + entry.key + "\" at line " + std::to_string(entry.line) +
           " a misspelling of \"" + key + "\"?)";
  }
  return "";
}

}  // namespace

void ParamReader::missing(const std::string& key) const {
  // A required key is usually missing because it is misspelt; point at the likely culprit.
  // While collecting, that waits until every key of the mapping has been asked for: a key
  // read later (`dram` when `sram` is missing) is nobody's misspelling.
  State& state = *state_;
  const bool now = !state.problems->collect;
  const std::size_t item = state.problems->items.size();
  const std::string hint = now ? misspelling_hint(state.entries, key) : "";
  if (record(key, "missing required key" + hint, false) && !now)
    state.missing.emplace_back(key, item);
}

bool ParamReader::section(const std::function<void(ParamReader&)>& read) {
  try {
    read(*this);
    return true;
  } catch (const ConfigProblems&) {
    if (!collects()) throw;
    abandon();
    return false;
  }
}

void ParamReader::abandon() const {
  state_->abandoned = true;
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

void ParamReader::record_unknown_keys() const {
  // Every unknown key of the whole tree, in file order, one problem each.
  std::vector<std::pair<Entry*, const State*>> unknown;
  std::vector<State*> pending{state_.get()};
  while (!pending.empty()) {
    State* state = pending.back();
    pending.pop_back();
    if (state->abandoned || state->silent) continue;
    for (const auto& [key, item] : state->missing)
      state->problems->items[item].text += misspelling_hint(state->entries, key);
    state->missing.clear();
    for (Entry& entry : state->entries)
      if (!entry.used) unknown.emplace_back(&entry, state);
    for (const auto& child : state->children)
      pending.push_back(child.get());
  }
  if (unknown.empty()) return;
  std::stable_sort(unknown.begin(), unknown.end(),
                   [](const auto& a, const auto& b) { return a.first->line < b.first->line; });
  Problems& problems = *state_->problems;
  for (const auto& [entry, owner] : unknown) {
    std::string problem = "unknown key";
    if (std::optional<std::string> meant = closest(entry->key, owner->known))
      problem += "; did you mean \"" + *meant + "\"?";
    problem += owner->known.empty() ? "; this mapping takes no keys"
                                    : "; known keys: " + join(owner->known);
    const std::string path = owner->path.empty() ? entry->key : owner->path + "." + entry->key;
    problems.record(owner->file, entry->line, path, problem);  // all of them, then raise
    entry->used = true;                                        // reported once
  }
  if (!problems.collect) problems.raise();
}

void ParamReader::finish() const {
  record_unknown_keys();
  if (!state_->problems->items.empty()) state_->problems->raise();
}

// ---- nested mappings ---------------------------------------------------------------------

std::optional<ParamReader> ParamReader::optional_child(const std::string& key) {
  const Entry* entry = take(key);
  if (entry == nullptr) return std::nullopt;
  if (!entry->value.IsMap() && !entry->value.IsNull()) {
    problem(key, "expected a mapping of keys, got " + describe(entry->value));
    return silent_child(key);
  }
  ParamReader child =
      from_node(entry->value, state_->file, key_path(key), entry->line, state_->problems);
  child.state_->silent = state_->silent;
  state_->children.push_back(child.state_);
  return child;
}

ParamReader ParamReader::silent_child(const std::string& key) const {
  ParamReader child =
      from_node(YAML::Node(), state_->file, key_path(key), key_line(key), state_->problems);
  child.state_->silent = true;
  return child;
}

std::optional<ParamValue> ParamReader::value(const std::string& key) {
  const Entry* entry = take(key);
  if (entry == nullptr) return std::nullopt;
  return ParamValue(entry->value, state_->file, key_path(key), entry->line, state_->problems);
}

ParamReader ParamReader::mapping(const ParamValue& value) {
  if (!value.is_mapping()) value.fail("expected a mapping of keys, got " + describe(value.node_));
  // A duplicate key anywhere in the document was recorded when it was parsed.
  ParamReader child =
      from_node(value.node_, value.file(), value.path(), value.line(), state_->problems);
  state_->children.push_back(child.state_);
  return child;
}

ParamReader ParamReader::child(const std::string& key) {
  if (std::optional<ParamReader> child = optional_child(key)) return *child;
  missing(key);
  return silent_child(key);
}

ParamReader ParamReader::child_or_empty(const std::string& key) {
  if (std::optional<ParamReader> child = optional_child(key)) return *child;
  ParamReader child =
      from_node(YAML::Node(), state_->file, key_path(key), state_->line, state_->problems);
  child.state_->silent = state_->silent;
  return child;
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
  // A bad value is a problem; when collecting, the read goes on with a placeholder.
  const auto bad = [&](const std::string& problem_text) {
    problem(key, problem_text);
    return placeholder<T>(min, max);
  };
  const auto out_of_range = [&](const std::string& low, const std::string& high,
                                const std::string& got) {
    return bad("must be between " + low + " and " + high + ", got " + got);
  };

  if constexpr (std::is_same_v<T, std::string>) {
    if (!scalar) return bad("expected a string, got " + describe(node));
    return text;
  } else if constexpr (std::is_same_v<T, double>) {
    const double low = min ? *min : std::numeric_limits<double>::lowest();
    const double high = max ? *max : std::numeric_limits<double>::max();
    double value = 0;
    if (!scalar || !parse_double(text, value))
      return bad("expected a number, got " + describe(node));
    if (value < low || value > high)
      return out_of_range(format_double(low), format_double(high), format_double(value));
    return value;
  } else if constexpr (std::is_same_v<T, ByteSize>) {
    const uint64_t low = min ? min->bytes : 0;
    const uint64_t high = max ? max->bytes : std::numeric_limits<uint64_t>::max();
    if (!scalar)
      return bad("expected a byte size such as 1024, 64KiB or 2 MiB, got " + describe(node));
    std::string why;
    const std::optional<uint64_t> bytes = parse_byte_size(text, why);
    if (!bytes) return bad(why);
    if (*bytes < low || *bytes > high)
      return out_of_range(format_bytes(low), format_bytes(high), format_bytes(*bytes));
    return ByteSize{*bytes};
  } else if constexpr (std::is_same_v<T, int64_t>) {
    const int64_t low = min ? *min : std::numeric_limits<int64_t>::min();
    const int64_t high = max ? *max : std::numeric_limits<int64_t>::max();
    int64_t value = 0;
    const Parse parsed = scalar ? parse_signed(text, value) : Parse::malformed;
    if (parsed == Parse::malformed)
      return bad("expected " + integer_kind(low < 0, low <= 0) + ", got " + describe(node));
    if (parsed == Parse::out_of_range || value < low || value > high)
      return out_of_range(std::to_string(low), std::to_string(high), text);
    return value;
  } else {  // uint32_t, uint64_t
    const uint64_t low = min ? *min : 0;
    const uint64_t high = max ? *max : std::numeric_limits<T>::max();
    uint64_t value = 0;
    const bool negative = !text.empty() && text[0] == '-';
    const Parse parsed = scalar && !negative ? parse_unsigned(text, value) : Parse::malformed;
    if (parsed == Parse::malformed)
      return bad("expected " + integer_kind(false, low == 0) + ", got " + describe(node));
    if (parsed == Parse::out_of_range || value < low || value > high)
      return out_of_range(std::to_string(low), std::to_string(high), text);
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
  const std::size_t problems_before = problem_count();
  const std::optional<std::string> text = read<std::string>(key, nullptr, nullptr);
  if (!text) return std::nullopt;
  if (problem_count() != problems_before) return 0;  // not a name: recorded, read on
  const std::optional<std::size_t> index = find_name(*text, names, count);
  if (index) return index;
  problem(key, unknown_value(*text, names, count));
  return 0;  // the placeholder, when collecting
}

std::size_t ParamReader::choose_required(const std::string& key, const std::string_view* names,
                                         std::size_t count) {
  const std::optional<std::size_t> index = choose_optional(key, names, count);
  if (index) return *index;
  missing(key);
  return 0;
}

std::optional<std::vector<std::size_t>> ParamReader::choose_list(const std::string& key,
                                                                 const std::string_view* names,
                                                                 std::size_t count) {
  const Entry* entry = take(key);
  if (entry == nullptr) return std::nullopt;
  const YAML::Node& node = entry->value;
  if (node.IsNull()) return std::vector<std::size_t>{};
  if (!node.IsSequence()) {
    problem(key, "expected a list such as [" + std::string(names[0]) + "], got " + describe(node));
    return std::nullopt;  // the fallback, when collecting
  }
  // Each bad item is a problem of its own; when collecting, the list goes on without it.
  std::vector<std::size_t> indices;
  std::size_t position = 0;
  bool bad = false;
  const auto item_problem = [&](const YAML::Node& item, const std::string& text) {
    const std::string path = key_path(key) + "[" + std::to_string(position - 1) + "]";
    if (!state_->silent && !state_->abandoned)
      state_->problems->add(state_->file, line_of(item.Mark(), entry->line), path, text);
    bad = true;
  };
  for (const YAML::Node& item : node) {
    ++position;
    if (!item.IsScalar()) {
      item_problem(item, "expected a name, got " + describe(item));
      continue;
    }
    const std::optional<std::size_t> index = find_name(item.Scalar(), names, count);
    if (!index) {
      item_problem(item, unknown_value(item.Scalar(), names, count));
    } else if (std::find(indices.begin(), indices.end(), *index) != indices.end()) {
      item_problem(item, "\"" + item.Scalar() + "\" is listed twice");
    } else {
      indices.push_back(*index);
    }
  }
  if (bad) {
    state_->flawed = true;
    return std::nullopt;  // the fallback: a list with holes would raise problems of its own
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
