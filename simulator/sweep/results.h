#pragma once
// A sweep's result rows and the files made of them (docs/sweep.md, "Results"): one row per
// point and workload, a flat JSON object with the same columns as results.csv, and the Pareto
// front over the spec's objectives.

#include <cstdint>
#include <string>
#include <vector>

#include "isa/common/json.h"
#include "simulator/sweep/sweep_spec.h"

namespace s2::sim::sweep {

// row, point, workload, the axes' keys, the configuration values the objectives name that no
// axis sets, status ("ok" or "failed"), the metrics (metric_names()), error.
std::vector<std::string> result_columns(const SweepSpec& spec);

// Whether `row`, a line read back from a results.jsonl, is a result of this sweep: an object
// whose "row" is below `rows`, whose "point" and "workload" are that row's (row / W and
// workloads[row % W]), that has every one of `columns`, status "ok" (each metric a number or
// null) or "failed" (with its error). A line that is not (torn by a kill, or edited) is
// dropped: its row runs again, and --collect reports it missing.
bool is_result_row(const Json& row, const std::vector<std::string>& columns,
                   const std::vector<std::string>& workloads, uint64_t rows);

// A row's string field, "" when absent or not a string.
std::string row_text(const Json& row, const std::string& key);

// One RFC 4180 CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);

// RFC 4180 CSV: the header, and a row's fields in `columns` order (null as empty).
std::string csv_header(const std::vector<std::string>& columns);
std::string csv_line(const Json& row, const std::vector<std::string>& columns);

// Indices of the points no other point dominates (no worse in every objective, better in
// one), objectives minimised, in the order given. Equal points are all on the front.
std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& points);

// The rows of `rows` (ordered by row number) that are on their workload's front over
// `objectives` (failed rows never are).
std::vector<const Json*> pareto_rows(const std::vector<Json>& rows,
                                     const std::vector<std::string>& objectives);

}  // namespace s2::sim::sweep
