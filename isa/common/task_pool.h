#pragma once
// TaskPool: runs the independent tasks of one call on a few threads, the caller's among them.
// The DRAM model serves a group's channels with it (simulator/dram/jedec_model.h): channels
// share no state, so serving them at once gives the same results as serving them in turn. The
// model zoo draws its initial weights with it, one parameter per task.
//
// run(tasks, fn) calls fn(0) ... fn(tasks - 1), each exactly once and in no set order, and
// returns when all have returned. Tasks are claimed one at a time from the call's range of
// unclaimed tasks, the caller from its low end and the workers from its high end, so a worker
// that is slow to wake costs nothing (the caller then runs every task itself), and with as many
// tasks as threads each task stays on the same thread from call to call while the workers keep
// up: a task's state (a DRAM channel's controller) stays in that core's cache. Which thread runs
// a task must not matter to the result (each task writes only its own state); with
// threads == 1 everything runs on the caller, no thread is ever started.
//
// Workers start on the first run() that has more than one task, and between calls they spin
// for a short while (calls come back to back in a simulation) and then sleep on a condition
// variable, so an idle pool costs no CPU. An exception thrown by a task is rethrown by run()
// (the lowest task's, if several threw) once no task of the call is running.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace s2 {

class TaskPool {
 public:
  // `threads`: how many threads run tasks, the caller included (at least 1).
  explicit TaskPool(unsigned threads);
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  unsigned threads() const { return threads_; }
  void run(std::size_t tasks, const std::function<void(std::size_t)>& fn);

 private:
  // The most tasks one round of a call claims from (run() splits a larger call into rounds).
  static constexpr std::size_t kMaxRound = 0xFFFF;
  // One round: tasks [0, tasks) of fn, tasks <= kMaxRound.
  void run_round(std::size_t tasks, const std::function<void(std::size_t)>& fn);
  // Claims and runs tasks of call `generation` until none is left or the call is over; the
  // caller claims from the low end, the workers from the high end.
  void work(uint32_t generation, bool caller);
  // A worker's loop: waits for a call after generation `seen`, works on it, and so on.
  void worker(uint32_t seen);

  unsigned threads_;
  std::vector<std::thread> workers_;  // threads_ - 1 once started
  // The current call: its generation in the high 32 bits and its unclaimed tasks [lo, hi) in
  // the low 32 (lo in bits 16-31, hi in bits 0-15), so a worker that read an old generation
  // cannot claim a task of a newer call.
  std::atomic<uint64_t> claim_{0};
  std::atomic<std::size_t> unfinished_{0};  // tasks of the current call not yet returned
  const std::function<void(std::size_t)>* fn_ = nullptr;
  std::vector<std::exception_ptr> errors_;  // per task of the current call
  std::mutex mutex_;                        // for the workers' sleep
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};
};

}  // namespace s2
