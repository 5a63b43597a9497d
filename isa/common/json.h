#pragma once
// JSON for every file the toolchain writes (the simulator's report, trace and dump manifest,
// the compiler's memory plan and reference manifest) and for the tests that read them:
// nlohmann-json, keys kept in insertion order.
//
// One policy for numbers everywhere: integers as integers, doubles in full (the shortest text
// that reads back to the same double), and a non-finite double, which JSON cannot spell, as
// null.

#include <nlohmann/json.hpp>
#include <string>

namespace s2 {

using Json = nlohmann::ordered_json;

// `json` with a two-space indent and a final newline. Strings are written as given; bytes
// that are not UTF-8 (a tensor name from a foreign file) become U+FFFD rather than an error.
std::string json_text(const Json& json);
// `json` on one line, without a newline (one event per line of a long array).
std::string json_line(const Json& json);

// Writes json_text(json) to `path` through a temporary file renamed into place; a UserError
// names the path on failure.
void write_json_file(const std::string& path, const Json& json);

}  // namespace s2
