#pragma once
// The exact formulation of the memory-budget choice (issue 20; docs/compiler.md, "Memory
// budget"): a 0-1 integer linear program in the manner of Checkmate (Jain et al., MLSys 2020),
// solved by GLPK's branch and cut. It knows nothing of the IR: compiler/schedule/fit_budget.cpp
// states the scheduled step as live bytes per step and its candidates as ways, each freeing the
// candidate's bytes over an interval of steps at a cost in cycles from the cost table, and
// applies the solution.
//
//   minimise    sum over candidates i, ways k of cycles(i,k) x(i,k)
//   subject to  sum over k of x(i,k) <= 1                                  for every i
//               live(t) - sum of bytes(i) x(i,k) over ways freeing step t
//                       + sum of extra(i,k) x(i,k) over ways adding at step t
//                       + sum of bytes(j) z(c) over couplings c holding j at step t
//                       <= capacity                                         for every step t
//               z(c) >= x(a, k_a) + sum over k of x(j,k) - 1                for coupling c
//               x binary, z >= 0
//
// and, for every excluded assignment e, sum of (1 - x) over its ways + sum of x over the others
// >= 1.
//
// A coupling says that when candidate a takes way k_a (a recomputation reading j) and j is
// treated at all, j's bytes stay live over [from, to] (j's first backward read moves to a's
// recomputation).

#include <cstdint>
#include <string>
#include <vector>

namespace s2::schedule {

struct IlpWay {
  uint32_t free_from = 0;  // the candidate's bytes are not live at steps [free_from, free_to]
  uint32_t free_to = 0;
  uint64_t extra_bytes = 0;  // bytes the way itself adds at `extra_step` (a recomputation's
  uint32_t extra_step = 0;   // other outputs)
  uint64_t cycles = 0;       // the step time the way adds (the objective)
};

struct IlpCandidate {
  uint64_t bytes = 0;
  std::vector<IlpWay> ways;
};

struct IlpCoupling {
  size_t a = 0, a_way = 0, j = 0;
  uint32_t from = 0, to = 0;
};

struct IlpProblem {
  std::vector<uint64_t> live;  // bytes live at each step with every candidate kept
  uint64_t capacity = 0;       // bytes the live set may reach at any step
  std::vector<IlpCandidate> candidates;
  std::vector<IlpCoupling> couplings;
  // Assignments (a way per candidate, -1 kept) the program may not choose again: their plans
  // did not fit (a no-good cut each).
  std::vector<std::vector<int>> excluded;
  double time_limit_s = 10;
};

struct IlpSolution {
  enum class Status { Optimal, Feasible, Infeasible, NoSolution };
  Status status = Status::NoSolution;  // Feasible: the time limit stopped it with a solution;
                                       // NoSolution: it stopped without one
  std::vector<int> way;                // per candidate: the way taken, -1 kept
  double objective = 0;                // cycles the ways add, by the formulation
  double seconds = 0;
  size_t rows = 0, columns = 0;  // the program's size after dropping steps that cannot bind
};

const char* status_name(IlpSolution::Status s);

IlpSolution solve_budget_ilp(const IlpProblem& problem);

}  // namespace s2::schedule
