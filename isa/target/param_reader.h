#pragma once
// ParamReader: the one typed reader of YAML parameters (STYLE.md, "One typed parameter reader").
//
// A reader wraps one YAML mapping together with the file it came from and its key path
// (`dram.timing`). Every value is read through it, so every mistake in a configuration is
// reported the same way, as an s2::UserError whose message is exactly
//
//     FILE:LINE: KEY.PATH: problem
//
// with LINE 1-based. Where the line points:
//   * a bad value (wrong type, out of range, unknown enum name): the line of its key;
//   * a bad list item: the line of the item;
//   * a missing required key: the line of the key that opened the enclosing mapping (for the
//     top level, the line of its first key);
//   * an unknown or duplicated key: the line of that key.
// KEY.PATH is relative to the top of FILE. Problems with the document as a whole use the path
// "(top level)"; YAML syntax errors read `FILE:LINE: syntax error: ...` and unreadable files
// `FILE: cannot open: reason`.
//
// Unknown keys: the reader records every key the schema asks about (present or not). After
// reading, finish() on the top-level reader reports every key of this mapping or of any mapping
// opened through child() that nobody asked about, at once: one `FILE:LINE: KEY.PATH: unknown
// key; ...` line each, in file order, with a did-you-mean and the known keys. A missing
// required key names the unread key of its mapping that resembles it (a misspelling: an edit
// or two, or up to two letters added or left out, as "colums" for "cols").
//
// Every problem at once. A reader made by collecting() (and every reader opened from it, or
// loaded beside it with load_beside()) does not stop at the first problem: it records it and
// reads on, so that one run of the tool lists every mistake in the files. Records and
// placeholders:
//   * a bad or missing value is recorded, and the read returns a placeholder: a number's
//     range clamped around 1 (never 0: some values are divisors), "" for a string, the first
//     name of an enumeration, the fallback of a list. A missing or malformed mapping reads as
//     a silent empty one: its own keys are not reported missing again;
//   * relation_problem() (a check between values) is not recorded when the mapping already has
//     a problem, since its inputs may be placeholders;
//   * fail() records its problem and throws ConfigProblems. A caller that reads a section
//     through section() catches it there: the section is abandoned, and its unread keys are
//     not reported as unknown;
//   * finish() records the unknown keys and throws one ConfigProblems listing every problem of
//     the files read together, sorted by file (in the order they were loaded) and line.
// A reader made by parse() or load() throws at the first problem (the unknown keys together),
// so a caller that needs every value valid can use what it reads.
//
// Readers are cheap handles: copies share the mapping and its record of consumed keys.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "isa/common/errors.h"
#include "isa/target/target_desc.h"

namespace s2::target {

// A number of bytes, written in YAML either as a plain integer (`1024`) or as a whole number
// with a binary unit: B, KiB, MiB, GiB, TiB (`64KiB`, `256 KiB`, `8GiB`). Decimal units (KB, MB)
// are rejected because they are ambiguous.
struct ByteSize {
  uint64_t bytes = 0;
};
inline bool operator==(ByteSize a, ByteSize b) {
  return a.bytes == b.bytes;
}
inline bool operator<(ByteSize a, ByteSize b) {
  return a.bytes < b.bytes;
}

// "256 KiB" when `bytes` is a whole number of the largest binary unit that divides it,
// otherwise "1000 B".
std::string format_bytes(uint64_t bytes);

// The UserError of a reader's problems: one `FILE:LINE: KEY.PATH: problem` line each.
class ConfigProblems : public UserError {
 public:
  using UserError::UserError;
};

namespace detail {
struct ProblemList;  // the problems of files read together (param_reader.cpp)
}  // namespace detail

// Throws the UserError `FILE:LINE: KEY.PATH: problem`. For checks made after reading, such as
// relations between values that may come from different files.
[[noreturn]] void throw_at(const std::string& file, int line, const std::string& key_path,
                           const std::string& problem);

// A configuration file is a few KiB; anything beyond this is refused before it is parsed (the
// YAML parser builds a node per value, so a file of gigabytes would cost gigabytes first).
inline constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

// The whole file at `path`, or the UserError `PATH: cannot open: reason`, or the UserError
// naming the limit when it holds more than kMaxConfigBytes (read no further than that).
std::string read_text_file(const std::string& path);

// The scalar forms the reader accepts, for text read through ParamValue: a byte size (plain
// integer or binary unit; `problem` says what is wrong when nullopt), a finite number.
std::optional<uint64_t> parse_byte_size_text(const std::string& text, std::string& problem);
std::optional<double> parse_number_text(std::string_view text);
// The candidate `word` most likely misspells (the reader's did-you-mean), if any.
std::optional<std::string> closest_name(const std::string& word,
                                        const std::vector<std::string>& candidates);

// One value read through ParamReader::value() whatever its kind (a scalar, a list or a
// mapping), with the place it was written: for schemas whose values take several shapes, such
// as a sweep's axes (simulator/sweep/sweep_spec.h). Errors read like the reader's.
class ParamValue {
 public:
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }  // dotted, list items as `key[i]`
  int line() const { return line_; }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_list() const { return node_.IsSequence(); }
  bool is_mapping() const { return node_.IsMap() || node_.IsNull(); }
  // The scalar's text; anything else fails "expected KIND".
  std::string text(const std::string& kind = "a value") const;
  // The items of a list, each at its own line; anything else fails "expected a list".
  std::vector<ParamValue> items() const;
  // Throws `FILE:LINE: PATH: problem` (recorded with the reader's problems first).
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  friend class ParamReader;
  using Problems = detail::ProblemList;
  ParamValue(YAML::Node node, std::string file, std::string path, int line,
             std::shared_ptr<Problems> problems)
      : node_(std::move(node)),
        file_(std::move(file)),
        path_(std::move(path)),
        line_(line),
        problems_(std::move(problems)) {}
  YAML::Node node_;
  std::string file_;
  std::string path_;
  int line_ = 0;
  std::shared_ptr<Problems> problems_;
};

// The value types a ParamReader can produce.
template <typename T>
inline constexpr bool kIsParamType =
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t> ||
    std::is_same_v<T, double> || std::is_same_v<T, std::string> || std::is_same_v<T, ByteSize>;
template <typename T>
inline constexpr bool kIsBoundedParamType = kIsParamType<T> && !std::is_same_v<T, std::string>;

class ParamReader {
 public:
  // The top-level mapping of `yaml_text`; `file_name` is used in messages only.
  static ParamReader parse(const std::string& yaml_text, const std::string& file_name);
  // Reads and parses the file at `path`.
  static ParamReader load(const std::string& path);
  // Like parse(), but recording problems and reading on (see "Every problem at once").
  static ParamReader collecting(const std::string& yaml_text, const std::string& file_name);
  // Reads and parses another file whose problems are reported with this reader's, in the same
  // mode (a preset or technology file a config names).
  ParamReader load_beside(const std::string& path) const;
  // Whether this reader records problems and reads on.
  bool collects() const;
  // Problems recorded so far in every file read together.
  std::size_t problem_count() const;

  const std::string& file() const;
  // Dotted key path of this mapping, "" at the top level.
  const std::string& path() const;
  // Line of the key that opened this mapping (or of the top-level mapping).
  int line() const;

  // Whether `key` is written in this mapping. Does not count as reading it.
  bool has(const std::string& key) const;

  // Typed reads. `min`/`max` bound numbers and byte sizes (inclusive); the forms without them
  // accept the type's whole range. get() returns `fallback` and optional() std::nullopt when
  // the key is absent; a key that is present must be valid in every form.
  template <typename T>
  T required(const std::string& key) {
    static_assert(kIsParamType<T>, "ParamReader cannot read this type");
    std::optional<T> value = read<T>(key, nullptr, nullptr);
    if (!value) {
      missing(key);
      return placeholder<T>(nullptr, nullptr);
    }
    return *value;
  }
  template <typename T>
  T required(const std::string& key, T min, T max) {
    static_assert(kIsBoundedParamType<T>, "only numbers and byte sizes have a range");
    std::optional<T> value = read<T>(key, &min, &max);
    if (!value) {
      missing(key);
      return placeholder<T>(&min, &max);
    }
    return *value;
  }
  template <typename T>
  T get(const std::string& key, T fallback) {
    static_assert(kIsParamType<T>, "ParamReader cannot read this type");
    return read<T>(key, nullptr, nullptr).value_or(fallback);
  }
  template <typename T>
  T get(const std::string& key, T fallback, T min, T max) {
    static_assert(kIsBoundedParamType<T>, "only numbers and byte sizes have a range");
    return read<T>(key, &min, &max).value_or(fallback);
  }
  template <typename T>
  std::optional<T> optional(const std::string& key) {
    static_assert(kIsParamType<T>, "ParamReader cannot read this type");
    return read<T>(key, nullptr, nullptr);
  }
  template <typename T>
  std::optional<T> optional(const std::string& key, T min, T max) {
    static_assert(kIsBoundedParamType<T>, "only numbers and byte sizes have a range");
    return read<T>(key, &min, &max);
  }

  // Enumerations written by name. `names[i]` is the spelling of the enumerator with value i,
  // so E must number its enumerators 0..N-1 in the order of `names`. A wrong name is reported
  // with the list of allowed ones.
  template <typename E, std::size_t N>
  E required_enum(const std::string& key, const std::array<std::string_view, N>& names) {
    return static_cast<E>(choose_required(key, names.data(), N));
  }
  template <typename E, std::size_t N>
  E get_enum(const std::string& key, E fallback, const std::array<std::string_view, N>& names) {
    std::optional<std::size_t> index = choose_optional(key, names.data(), N);
    return index ? static_cast<E>(*index) : fallback;
  }
  // A YAML list of names (`[bias, activation]`), read as a set; a name listed twice is an error.
  template <typename E, std::size_t N>
  std::set<E> get_enum_set(const std::string& key, std::set<E> fallback,
                           const std::array<std::string_view, N>& names) {
    std::optional<std::vector<std::size_t>> indices = choose_list(key, names.data(), N);
    if (!indices) return fallback;
    std::set<E> result;
    for (std::size_t index : *indices)
      result.insert(static_cast<E>(index));
    return result;
  }

  // A YAML list of names in order (`[row, rank, ...]`) that must name every enumerator once:
  // a permutation, such as a field order. A missing or repeated name is an error.
  template <typename E, std::size_t N>
  std::array<E, N> get_enum_permutation(const std::string& key, const std::array<E, N>& fallback,
                                        const std::array<std::string_view, N>& names) {
    std::optional<std::vector<std::size_t>> indices = choose_list(key, names.data(), N);
    if (!indices) return fallback;
    if (indices->size() != N) {
      problem(key, permutation_problem(*indices, names.data(), N));
      return fallback;
    }
    std::array<E, N> result{};
    for (std::size_t i = 0; i < N; ++i)
      result[i] = static_cast<E>((*indices)[i]);
    return result;
  }

  // A YAML list of names, each one of `names` (at most once): their indices in `names`, in
  // the list's order; nullopt when the key is absent.
  std::optional<std::vector<std::size_t>> get_name_list(
      const std::string& key, const std::vector<std::string_view>& names) {
    return choose_list(key, names.data(), names.size());
  }

  // A nested mapping. An empty value (`key:` with nothing after it) reads as an empty mapping.
  // A missing or malformed one is a problem; when collecting, it reads as a silent empty one.
  ParamReader child(const std::string& key);
  std::optional<ParamReader> optional_child(const std::string& key);
  // Like optional_child, but an absent key gives an empty mapping, so that get() on it returns
  // the fallbacks. Useful for a section of overrides.
  ParamReader child_or_empty(const std::string& key);

  // The value of `key` whatever its kind (reading it); nullopt when absent.
  std::optional<ParamValue> value(const std::string& key);
  // A reader of a mapping found as a value (a list item, say), whose unknown keys this
  // reader's finish() reports; a value of another kind fails "expected a mapping".
  ParamReader mapping(const ParamValue& value);

  // The problem `FILE:LINE: PATH.key: problem`, LINE being the key's line when it is present
  // and this mapping's line otherwise. fail() records it and throws ConfigProblems (listing
  // every problem so far); problem() throws it only when not collecting; relation_problem()
  // too, and is not recorded when this mapping already has a problem (see above).
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  void problem(const std::string& key, const std::string& problem) const;
  void relation_problem(const std::string& key, const std::string& problem) const;

  // Runs `read` on this mapping. When collecting, a fail() inside it abandons the mapping (the
  // problem stays recorded; the keys it did not reach are not reported unknown) and section()
  // returns false; otherwise the ConfigProblems propagates.
  bool section(const std::function<void(ParamReader&)>& read);
  // Marks this mapping, with every mapping opened from it, as abandoned (see section()).
  void abandon() const;

  // Records every key, in this mapping or in any mapping opened from it (not abandoned), that
  // was never asked for: one `unknown key` problem each, with a did-you-mean. When not
  // collecting, throws them together.
  void record_unknown_keys() const;
  // record_unknown_keys(), then throws ConfigProblems listing every problem recorded in the
  // files read together, if there is any.
  void finish() const;

  // Adds where every key of this mapping and of the mappings opened from it was written to
  // `out` (key path, prefixed by `prefix` and a dot unless it is empty -> file and line),
  // replacing what `out` had for the same path.
  void record_locations(KeyLocations& out, const std::string& prefix = "") const;

 private:
  struct State;
  struct Entry;
  explicit ParamReader(std::shared_ptr<State> state);

  using Problems = detail::ProblemList;
  static ParamReader parse_into(const std::string& yaml_text, const std::string& file_name,
                                std::shared_ptr<Problems> problems);
  static ParamReader from_node(const YAML::Node& node, const std::string& file_name,
                               const std::string& path, int line,
                               std::shared_ptr<Problems> problems);
  // An empty mapping whose reads are placeholders and whose problems are not recorded: what a
  // missing or malformed mapping reads as when collecting.
  ParamReader silent_child(const std::string& key) const;
  // Records `key` as known and returns its entry (marked consumed) or nullptr when absent.
  Entry* take(const std::string& key);
  std::string key_path(const std::string& key) const;
  int key_line(const std::string& key) const;
  // The missing-key problem of `key`, naming the unread key that may be its misspelling.
  void missing(const std::string& key) const;
  // Records `problem` at `key` (see problem()); `relation` skips it in a mapping with a
  // problem. Returns whether it was recorded.
  bool record(const std::string& key, const std::string& problem, bool relation) const;

  // What a required read returns when its key is missing or bad: a value in [min, max] as near
  // 1 as it can be, "" for a string.
  template <typename T>
  static T placeholder(const T* min, const T* max) {
    if constexpr (std::is_same_v<T, std::string>) {
      return std::string();
    } else if constexpr (std::is_same_v<T, ByteSize>) {
      uint64_t value = 1;
      if (min) value = std::max(value, min->bytes);
      if (max) value = std::min(value, max->bytes);
      return ByteSize{value};
    } else {
      T value = 1;
      if (min) value = std::max(value, *min);
      if (max) value = std::min(value, *max);
      return value;
    }
  }

  // Reads `key` when present; null bounds mean the whole range of T. Defined for the
  // kIsParamType types only.
  template <typename T>
  std::optional<T> read(const std::string& key, const T* min, const T* max);

  std::size_t choose_required(const std::string& key, const std::string_view* names,
                              std::size_t count);
  std::optional<std::size_t> choose_optional(const std::string& key, const std::string_view* names,
                                             std::size_t count);
  static std::string permutation_problem(const std::vector<std::size_t>& given,
                                         const std::string_view* names, std::size_t count);
  std::optional<std::vector<std::size_t>> choose_list(const std::string& key,
                                                      const std::string_view* names,
                                                      std::size_t count);

  std::shared_ptr<State> state_;
};

}  // namespace s2::target
