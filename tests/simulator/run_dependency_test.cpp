// The controller's dependency state (simulator/top/dependency_tracker.h), fed by hand: issue
// order, fences, the decode window, and the deadlock report on states the container validator
// would reject.
#include <gtest/gtest.h>

#include "isa/common/errors.h"
#include "simulator/top/dependency_tracker.h"

namespace s2::sim::top {
namespace {

using Ready = std::vector<uint32_t>;

TEST(RunDependencies, IndependentInstructionsIssueTogetherDependentOnesWait) {
  DependencyTracker t({{{}, false}, {{}, false}, {{0}, false}, {{}, true}}, 64);
  EXPECT_EQ(t.take_ready(), (Ready{0, 1}));
  EXPECT_EQ(t.take_ready(), Ready{});
  t.complete(1);
  EXPECT_EQ(t.take_ready(), Ready{});  // 2 still waits for 0
  t.complete(0);
  EXPECT_EQ(t.take_ready(), Ready{2});
  EXPECT_EQ(t.in_flight(), 1u);
  t.complete(2);
  EXPECT_EQ(t.take_ready(), Ready{3});  // the fence, once everything before it is done
  t.complete(3);
  EXPECT_TRUE(t.finished());
  EXPECT_FALSE(t.deadlocked());
}

TEST(RunDependencies, FenceHoldsBackLaterInstructions) {
  DependencyTracker t({{{}, false}, {{}, true}, {{}, false}, {{}, true}}, 64);
  EXPECT_EQ(t.take_ready(), Ready{0});
  t.complete(0);
  EXPECT_EQ(t.take_ready(), Ready{1});
  t.complete(1);
  EXPECT_EQ(t.take_ready(), Ready{2});
}

TEST(RunDependencies, WindowOfOneIsSequential) {
  DependencyTracker t({{{}, false}, {{}, false}, {{}, false}}, 1);
  EXPECT_EQ(t.take_ready(), Ready{0});
  EXPECT_EQ(t.take_ready(), Ready{});
  t.complete(0);
  EXPECT_EQ(t.take_ready(), Ready{1});
}

TEST(RunDependencies, CycleIsADeadlockListingWhatEachWaitsFor) {
  // 1 <-> 2 wait for each other; 3 waits for 2; 0 is free.
  DependencyTracker t({{{}, false}, {{2}, false}, {{1}, false}, {{2}, false}, {{}, true}}, 64);
  EXPECT_EQ(t.take_ready(), Ready{0});
  EXPECT_FALSE(t.deadlocked());
  t.complete(0);
  EXPECT_EQ(t.take_ready(), Ready{});
  ASSERT_TRUE(t.deadlocked());
  const auto stuck = t.stuck();
  ASSERT_EQ(stuck.size(), 4u);
  EXPECT_EQ(stuck[0].index, 1u);
  EXPECT_EQ(stuck[0].waiting_for, Ready{2});
  EXPECT_EQ(stuck[1].waiting_for, Ready{1});
  EXPECT_EQ(stuck[2].waiting_for, Ready{2});
  EXPECT_EQ(describe_stuck(stuck),
            "instruction 1 waits for 2; instruction 2 waits for 1; instruction 3 waits for 2; "
            "instruction 4 waits behind a fence");
}

TEST(RunDependencies, DependencyOutsideTheProgramNeverResolves) {
  DependencyTracker t({{{7}, false}}, 64);
  EXPECT_EQ(t.take_ready(), Ready{});
  ASSERT_TRUE(t.deadlocked());
  EXPECT_EQ(describe_stuck(t.stuck()), "instruction 0 waits for 7");
}

TEST(RunDependencies, ForwardDependencyOutsideTheWindowDeadlocks) {
  // 0 waits for 1, which a window of one never decodes.
  DependencyTracker t({{{1}, false}, {{}, false}}, 1);
  EXPECT_EQ(t.take_ready(), Ready{});
  EXPECT_TRUE(t.deadlocked());
  DependencyTracker wide({{{1}, false}, {{}, false}}, 2);
  EXPECT_EQ(wide.take_ready(), Ready{1});
}

TEST(RunDependencies, CompletingAnInstructionNotInFlightIsAnInternalError) {
  DependencyTracker t({{{}, false}}, 4);
  EXPECT_THROW(t.complete(0), InternalError);
}

}  // namespace
}  // namespace s2::sim::top
