#include "simulator/sweep/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace s2::sim::sweep {

std::vector<std::string> result_columns(const SweepSpec& spec) {
  std::vector<std::string> columns{"row", "point", "workload"};
  auto add = [&columns](const std::string& name) {
    if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
  };
  for (const Axis& axis : spec.axes)
    for (const std::string& key : axis.keys)
      add(key);
  for (const std::string& objective : spec.objectives)
    if (std::find(metric_names().begin(), metric_names().end(), objective) == metric_names().end())
      add(objective);
  add("status");
  for (const std::string& metric : metric_names())
    add(metric);
  add("error");
  return columns;
}

namespace {

// The row's field `key` as an unsigned count, or none when absent or of another type.
std::optional<uint64_t> row_count(const Json& row, const char* key) {
  if (!row.contains(key)) return std::nullopt;
  const Json& value = row.at(key);
  if (!value.is_number_unsigned()) return std::nullopt;
  return value.get<uint64_t>();
}

}  // namespace

bool is_result_row(const Json& row, const std::vector<std::string>& columns,
                   const std::vector<std::string>& workloads, uint64_t rows) {
  if (!row.is_object() || workloads.empty()) return false;
  const std::optional<uint64_t> r = row_count(row, "row");
  const std::optional<uint64_t> point = row_count(row, "point");
  if (!r || *r >= rows || !point || *point != *r / workloads.size() ||
      row_text(row, "workload") != workloads[*r % workloads.size()])
    return false;
  for (const std::string& column : columns)
    if (!row.contains(column)) return false;
  const std::string status = row_text(row, "status");
  if (status == "failed") return row.at("error").is_string();
  if (status != "ok") return false;
  for (const std::string& metric : metric_names())
    if (row.contains(metric) && !row.at(metric).is_number() && !row.at(metric).is_null())
      return false;
  return true;
}

std::string row_text(const Json& row, const std::string& key) {
  const auto it = row.find(key);
  if (it == row.end()) return "";
  const std::string* text = it->get_ptr<const std::string*>();
  return text != nullptr ? *text : "";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

namespace {

std::string field_text(const Json& value) {
  if (value.is_null()) return "";
  if (const std::string* text = value.get_ptr<const std::string*>()) return *text;
  if (value.is_number_float()) return fmt::format("{:.10g}", value.get<double>());
  return value.dump();
}

}  // namespace

std::string csv_header(const std::vector<std::string>& columns) {
  std::string line;
  for (const std::string& c : columns)
    line += (line.empty() ? "" : ",") + csv_field(c);
  return line + "\n";
}

std::string csv_line(const Json& row, const std::vector<std::string>& columns) {
  std::string line;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) line += ",";
    const auto it = row.find(columns[i]);
    if (it != row.end()) line += csv_field(field_text(*it));
  }
  return line + "\n";
}

std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& points) {
  std::vector<size_t> front;
  for (size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < points.size() && !dominated; ++j) {
      if (j == i) continue;
      bool no_worse = true, better = false;
      for (size_t k = 0; k < points[i].size(); ++k) {
        no_worse = no_worse && points[j][k] <= points[i][k];
        better = better || points[j][k] < points[i][k];
      }
      dominated = no_worse && better;
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::vector<const Json*> pareto_rows(const std::vector<Json>& rows,
                                     const std::vector<std::string>& objectives) {
  std::map<std::string, std::vector<const Json*>> by_workload;
  std::vector<std::string> order;
  for (const Json& row : rows) {
    if (row_text(row, "status") != "ok") continue;
    const std::string workload = row_text(row, "workload");
    if (by_workload.count(workload) == 0) order.push_back(workload);
    by_workload[workload].push_back(&row);
  }
  std::vector<const Json*> front;
  for (const std::string& workload : order) {
    const std::vector<const Json*>& candidates = by_workload[workload];
    std::vector<std::vector<double>> points;
    for (const Json* row : candidates) {
      std::vector<double> p;
      for (const std::string& o : objectives) {
        const auto it = row->find(o);
        p.push_back(it != row->end() && it->is_number() ? it->get<double>() : 0.0);
      }
      points.push_back(std::move(p));
    }
    for (size_t i : pareto_front(points))
      front.push_back(candidates[i]);
  }
  return front;
}

}  // namespace s2::sim::sweep
