// TaskPool (isa/common/task_pool.h): every task of a call runs exactly once, whichever
// thread takes it; calls come back to back; a task's exception reaches the caller; one thread
// runs everything inline.

#include "isa/common/task_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

namespace s2 {
namespace {

TEST(TaskPool, RunsEveryTaskOnceInEveryCall) {
  TaskPool pool(3);
  std::vector<std::atomic<int>> runs(9);
  for (int call = 0; call < 2000; ++call) {
    const std::size_t tasks = 1 + static_cast<std::size_t>(call) % runs.size();
    for (auto& r : runs)
      r.store(0);
    pool.run(tasks, [&](std::size_t i) { runs[i].fetch_add(1); });
    for (std::size_t i = 0; i < runs.size(); ++i)
      ASSERT_EQ(runs[i].load(), i < tasks ? 1 : 0) << "call " << call << " task " << i;
  }
}

TEST(TaskPool, OtherThreadsTakeTasks) {
  TaskPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  // Each task waits until a task has run off the caller's thread (or long enough that the
  // worker must have started), so the caller cannot take them all.
  for (int call = 0; call < 50 && elsewhere.load() == 0; ++call) {
    pool.run(2, [&](std::size_t) {
      if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
      for (int spin = 0; spin < 200000 && elsewhere.load() == 0; ++spin)
        std::this_thread::yield();
    });
  }
  EXPECT_GT(elsewhere.load(), 0);
}

// A fresh pool's first call is shared too (the zoo draws its weights in one call): each task
// waits until both have started, which one thread alone cannot do (it gives up after 10 s).
TEST(TaskPool, TheFirstCallIsShared) {
  TaskPool pool(2);
  std::atomic<int> started{0};
  std::atomic<bool> together{true};
  pool.run(2, [&](std::size_t) {
    started.fetch_add(1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2) {
      if (std::chrono::steady_clock::now() > give_up) {
        together.store(false);
        return;
      }
      std::this_thread::yield();
    }
  });
  EXPECT_TRUE(together.load());
}

TEST(TaskPool, ATasksExceptionReachesTheCaller) {
  TaskPool pool(2);
  std::atomic<int> finished{0};
  EXPECT_THROW(pool.run(4,
                        [&](std::size_t i) {
                          if (i == 2) throw std::runtime_error("task 2");
                          finished.fetch_add(1);
                        }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 3);  // the other tasks of the call still ran
  std::atomic<int> after{0};
  pool.run(3, [&](std::size_t) { after.fetch_add(1); });  // the pool still works
  EXPECT_EQ(after.load(), 3);
}

// More tasks than one round claims from (65535): every one still runs once, and an exception
// of a task in the first round does not stop the later rounds.
TEST(TaskPool, ACallLargerThanARoundRunsEveryTask) {
  TaskPool pool(2);
  std::vector<std::atomic<uint8_t>> runs(70000);
  EXPECT_THROW(pool.run(runs.size(),
                        [&](std::size_t i) {
                          runs[i].fetch_add(1);
                          if (i == 7) throw std::runtime_error("task 7");
                        }),
               std::runtime_error);
  for (std::size_t i = 0; i < runs.size(); ++i)
    ASSERT_EQ(runs[i].load(), 1) << "task " << i;
}

// The caller claims from the low end: with two tasks on two threads, task 0 stays on the
// caller (its state stays in the caller's cache) and the worker takes task 1 when it is awake.
// Only a caller preempted between publishing a call and its first claim loses task 0, so
// nearly every call keeps it.
TEST(TaskPool, TheCallerKeepsTheFirstTask) {
  TaskPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> first_on_caller{0};
  const int calls = 200;
  for (int call = 0; call < calls; ++call) {
    pool.run(2, [&](std::size_t i) {
      if (i == 0 && std::this_thread::get_id() == caller) first_on_caller.fetch_add(1);
    });
  }
  EXPECT_GE(first_on_caller.load(), calls * 9 / 10);
}

TEST(TaskPool, OneThreadRunsInlineInOrder) {
  TaskPool pool(1);
  EXPECT_EQ(pool.threads(), 1u);
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::size_t> order;
  pool.run(5, [&](std::size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(TaskPool(0).threads(), 1u);
}

}  // namespace
}  // namespace s2
