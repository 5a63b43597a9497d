#pragma once
// The two things the JSON writers of the reports need: a quoted, escaped string and a number
// that is always valid JSON (no NaN or infinity, which JSON cannot spell).

#include <string>
#include <string_view>

namespace s2::sim::report {

std::string json_string(std::string_view text);
std::string json_number(double value);

}  // namespace s2::sim::report
