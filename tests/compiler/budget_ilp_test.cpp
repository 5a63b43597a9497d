// The exact formulation of the memory budget (compiler/schedule/budget_ilp.h) on programs small
// enough to solve by hand.
#include "compiler/schedule/budget_ilp.h"

#include <gtest/gtest.h>

namespace s2::schedule {
namespace {

// Five steps; two candidates of 100 and 60 bytes live across steps 1-3 over a base of 50.
IlpProblem two_candidates(uint64_t capacity) {
  IlpProblem p;
  p.live = {50, 210, 210, 210, 50};
  p.capacity = capacity;
  p.candidates = {{100, {{1, 3, 0, 0, 40}, {2, 3, 0, 0, 10}}},  // a: 1-3 for 40, or 2-3 for 10
                  {60, {{1, 3, 0, 0, 25}}}};                    // b: 1-3 for 25
  return p;
}

TEST(BudgetIlp, TakesTheCheapestWaysThatFit) {
  // 180: either candidate over step 1 (a's cheap way frees only steps 2-3): b for 25.
  IlpSolution s = solve_budget_ilp(two_candidates(180));
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{-1, 0}));
  EXPECT_DOUBLE_EQ(s.objective, 25);
  // 140: a's wide way (b alone leaves 150 at step 1), alone enough: 40.
  s = solve_budget_ilp(two_candidates(140));
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{0, -1}));
  // 100: both, a by its wide way: 65.
  s = solve_budget_ilp(two_candidates(100));
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{0, 0}));
  EXPECT_DOUBLE_EQ(s.objective, 65);
  // Nothing to do.
  s = solve_budget_ilp(two_candidates(210));
  EXPECT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{-1, -1}));
  EXPECT_EQ(s.rows, 0u);
}

TEST(BudgetIlp, InfeasibleBelowEverything) {
  EXPECT_EQ(solve_budget_ilp(two_candidates(49)).status, IlpSolution::Status::Infeasible);
  EXPECT_EQ(solve_budget_ilp(two_candidates(49)).way, (std::vector<int>{-1, -1}));
  EXPECT_EQ(solve_budget_ilp(two_candidates(40)).status, IlpSolution::Status::Infeasible);
}

TEST(BudgetIlp, ExtraBytesOfAWayCount) {
  // a's wide way now writes 80 more bytes at step 4 (a recomputation's other outputs): at 100
  // it no longer fits there, and no assignment does.
  IlpProblem p = two_candidates(100);
  p.candidates[0].ways[0].extra_bytes = 80;
  p.candidates[0].ways[0].extra_step = 4;
  EXPECT_EQ(solve_budget_ilp(p).status, IlpSolution::Status::Infeasible);
  p.capacity = 130;  // 50 + 80 at step 4, 110 over steps 1-3 with a's wide way alone
  const IlpSolution s = solve_budget_ilp(p);
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{0, -1}));
}

TEST(BudgetIlp, ACouplingHoldsTheOtherCandidate) {
  // a's first way reads b: with both treated b stays live over step 3.
  IlpProblem p = two_candidates(100);
  p.couplings = {{0, 0, 1, 3, 3}};
  // Step 3 then holds 210 - 100 - 60 + 60 = 110 > 100: no assignment fits.
  EXPECT_EQ(solve_budget_ilp(p).status, IlpSolution::Status::Infeasible);
  p.capacity = 110;  // a's wide way alone
  const IlpSolution s = solve_budget_ilp(p);
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{0, -1}));
}

TEST(BudgetIlp, AnExcludedAssignmentIsNotChosenAgain) {
  IlpProblem p = two_candidates(180);
  p.excluded = {{-1, 0}};  // b alone did not fit the planner's plan
  IlpSolution s = solve_budget_ilp(p);
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{1, 0}));  // the next cheapest: a's cheap way with b, 35
  EXPECT_DOUBLE_EQ(s.objective, 35);
  p.excluded.push_back({1, 0});
  s = solve_budget_ilp(p);
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.way, (std::vector<int>{0, -1}));  // then a's wide way, 40
  EXPECT_DOUBLE_EQ(s.objective, 40);
}

}  // namespace
}  // namespace s2::schedule
