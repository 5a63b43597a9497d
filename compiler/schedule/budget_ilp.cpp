#include "compiler/schedule/budget_ilp.h"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

namespace s2::schedule {
namespace {

// Bytes enter the program in KiB: the byte counts of a large step (1e10) beside 0-1 variables
// strain GLPK's tolerances, and every figure here is a multiple of the planner's alignment.
double kib(uint64_t bytes) {
  return static_cast<double>(bytes) / 1024.0;
}

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

// One sparse row: GLPK's arrays count from 1.
struct Row {
  std::vector<int> index{0};
  std::vector<double> value{0.0};
  void add(int column, double v) {
    index.push_back(column);
    value.push_back(v);
  }
  int size() const { return static_cast<int>(index.size()) - 1; }
};

}  // namespace

const char* status_name(IlpSolution::Status s) {
  switch (s) {
    case IlpSolution::Status::Optimal:
      return "optimal";
    case IlpSolution::Status::Feasible:
      return "feasible (time limit)";
    case IlpSolution::Status::Infeasible:
      return "infeasible";
    case IlpSolution::Status::NoSolution:
      return "no solution (time limit)";
  }
  return "?";
}

IlpSolution solve_budget_ilp(const IlpProblem& problem) {
  const auto started = std::chrono::steady_clock::now();
  IlpSolution solution;
  solution.way.assign(problem.candidates.size(), -1);
  auto finish = [&](IlpSolution::Status status) {
    solution.status = status;
    solution.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return solution;
  };
  const size_t steps = problem.live.size();

  // Columns: x(i,k) for every way, then z(c) for every coupling.
  std::vector<std::vector<int>> x(problem.candidates.size());
  int columns = 0;
  for (size_t i = 0; i < problem.candidates.size(); ++i)
    for (size_t k = 0; k < problem.candidates[i].ways.size(); ++k)
      x[i].push_back(++columns);
  const int first_z = columns + 1;
  columns += static_cast<int>(problem.couplings.size());

  // The memory rows of the steps that can exceed the capacity, with every way taken that adds.
  std::vector<Row> rows;
  std::vector<double> bounds;
  for (size_t t = 0; t < steps; ++t) {
    Row row;
    uint64_t most = problem.live[t];
    for (size_t i = 0; i < problem.candidates.size(); ++i) {
      const IlpCandidate& c = problem.candidates[i];
      for (size_t k = 0; k < c.ways.size(); ++k) {
        const IlpWay& w = c.ways[k];
        double v = 0;
        if (w.free_from <= t && t <= w.free_to) v -= kib(c.bytes);
        if (w.extra_bytes != 0 && w.extra_step == t) {
          v += kib(w.extra_bytes);
          most += w.extra_bytes;
        }
        if (v != 0) row.add(x[i][k], v);
      }
    }
    for (size_t n = 0; n < problem.couplings.size(); ++n) {
      const IlpCoupling& c = problem.couplings[n];
      if (c.from <= t && t <= c.to) {
        row.add(first_z + static_cast<int>(n), kib(problem.candidates[c.j].bytes));
        most += problem.candidates[c.j].bytes;
      }
    }
    if (most <= problem.capacity) continue;  // cannot bind
    const double bound = kib(problem.capacity) - kib(problem.live[t]);
    if (row.size() == 0) return finish(IlpSolution::Status::Infeasible);
    rows.push_back(std::move(row));
    bounds.push_back(bound);
  }
  // Every step fits with every candidate kept: that costs nothing (no way has negative cycles).
  if (rows.empty()) return finish(IlpSolution::Status::Optimal);
  // At most one way per candidate.
  for (size_t i = 0; i < problem.candidates.size(); ++i) {
    if (x[i].size() < 2) continue;
    Row row;
    for (int col : x[i])
      row.add(col, 1.0);
    rows.push_back(std::move(row));
    bounds.push_back(1.0);
  }
  // z(c) >= x(a,k_a) + sum_k x(j,k) - 1, as x(a,k_a) + sum_k x(j,k) - z(c) <= 1.
  for (size_t n = 0; n < problem.couplings.size(); ++n) {
    const IlpCoupling& c = problem.couplings[n];
    Row row;
    row.add(x[c.a][c.a_way], 1.0);
    for (int col : x[c.j])
      row.add(col, 1.0);
    row.add(first_z + static_cast<int>(n), -1.0);
    rows.push_back(std::move(row));
    bounds.push_back(1.0);
  }
  // No-good cuts: -sum of the excluded ways' x + sum of the others' >= 1 - their number.
  std::vector<size_t> at_least;  // rows bounded below
  for (const std::vector<int>& e : problem.excluded) {
    Row row;
    double taken = 0;
    for (size_t i = 0; i < problem.candidates.size(); ++i)
      for (size_t k = 0; k < x[i].size(); ++k) {
        const bool chosen = i < e.size() && e[i] == static_cast<int>(k);
        row.add(x[i][k], chosen ? -1.0 : 1.0);
        taken += chosen ? 1.0 : 0.0;
      }
    at_least.push_back(rows.size());
    rows.push_back(std::move(row));
    bounds.push_back(1.0 - taken);
  }
  solution.rows = rows.size();
  solution.columns = static_cast<size_t>(columns);

  glp_term_out(GLP_OFF);
  std::unique_ptr<glp_prob, ProblemDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), columns);
  for (size_t i = 0; i < problem.candidates.size(); ++i)
    for (size_t k = 0; k < x[i].size(); ++k) {
      glp_set_col_kind(lp.get(), x[i][k], GLP_BV);
      glp_set_obj_coef(lp.get(), x[i][k],
                       static_cast<double>(problem.candidates[i].ways[k].cycles));
    }
  for (int col = first_z; col <= columns; ++col)
    glp_set_col_bnds(lp.get(), col, GLP_DB, 0.0, 1.0);
  glp_add_rows(lp.get(), static_cast<int>(rows.size()));
  for (size_t r = 0; r < rows.size(); ++r) {
    const int row = static_cast<int>(r) + 1;
    const bool lower = std::find(at_least.begin(), at_least.end(), r) != at_least.end();
    glp_set_row_bnds(lp.get(), row, lower ? GLP_LO : GLP_UP, lower ? bounds[r] : 0.0,
                     lower ? 0.0 : bounds[r]);
    glp_set_mat_row(lp.get(), row, rows[r].size(), rows[r].index.data(), rows[r].value.data());
  }
  // The relaxation first, by the simplex: glp_intopt's own presolver aborts the process
  // (glp_add_cols: ncs = 0) when it fixes every column, as on a program every step of which
  // fits with each candidate kept but one candidate's ways.
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  simplex.presolve = GLP_OFF;
  glp_scale_prob(lp.get(), GLP_SF_AUTO);
  if (glp_simplex(lp.get(), &simplex) != 0 || glp_get_status(lp.get()) == GLP_NOFEAS)
    return finish(IlpSolution::Status::Infeasible);
  if (glp_get_status(lp.get()) != GLP_OPT) return finish(IlpSolution::Status::NoSolution);
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_OFF;
  // Each memory row is a knapsack over the candidates live across it: cover and mixed-integer
  // rounding cuts and the feasibility pump close the relaxation's gap (without them a 65-column
  // program of the tiny GPT ran into the time limit).
  parm.cov_cuts = GLP_ON;
  parm.mir_cuts = GLP_ON;
  parm.gmi_cuts = GLP_ON;
  parm.clq_cuts = GLP_ON;
  parm.fp_heur = GLP_ON;
  parm.br_tech = GLP_BR_PCH;
  parm.msg_lev = GLP_MSG_OFF;
  parm.tm_lim = static_cast<int>(std::lround(problem.time_limit_s * 1000.0));
  const int ret = glp_intopt(lp.get(), &parm);
  if (ret == GLP_ENOPFS) return finish(IlpSolution::Status::Infeasible);
  const int status = glp_mip_status(lp.get());
  if (status == GLP_NOFEAS) return finish(IlpSolution::Status::Infeasible);
  if (status != GLP_OPT && status != GLP_FEAS) return finish(IlpSolution::Status::NoSolution);
  for (size_t i = 0; i < problem.candidates.size(); ++i)
    for (size_t k = 0; k < x[i].size(); ++k)
      if (glp_mip_col_val(lp.get(), x[i][k]) > 0.5) solution.way[i] = static_cast<int>(k);
  solution.objective = glp_mip_obj_val(lp.get());
  return finish(status == GLP_OPT && ret == 0 ? IlpSolution::Status::Optimal
                                              : IlpSolution::Status::Feasible);
}

}  // namespace s2::schedule
