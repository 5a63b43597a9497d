#include "isa/common/task_pool.h"

#include <algorithm>
#include <chrono>

namespace s2 {

namespace {

// How long an idle worker spins for the next call before it sleeps: long enough to span the
// simulator's work between two DRAM groups, short enough not to matter to an idle process.
constexpr std::chrono::microseconds kSpin{100};

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

uint32_t generation_of(uint64_t claim) {
  return static_cast<uint32_t>(claim >> 32);
}

}  // namespace

TaskPool::TaskPool(unsigned threads) : threads_(std::max(threads, 1u)) {}

TaskPool::~TaskPool() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_relaxed);
  }
  wake_.notify_all();
  for (std::thread& t : workers_)
    t.join();
}

void TaskPool::run(std::size_t tasks, const std::function<void(std::size_t)>& fn) {
  if (threads_ == 1 || tasks <= 1) {
    for (std::size_t i = 0; i < tasks; ++i)
      fn(i);
    return;
  }
  if (tasks <= kMaxRound) return run_round(tasks, fn);
  std::exception_ptr error;  // the first round's that threw: it holds the lowest task
  for (std::size_t first = 0; first < tasks; first += kMaxRound) {
    const std::size_t n = std::min(kMaxRound, tasks - first);
    try {
      run_round(n, [&](std::size_t i) { fn(first + i); });
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

void TaskPool::run_round(std::size_t tasks, const std::function<void(std::size_t)>& fn) {
  if (workers_.empty()) {
    // The generation before this call's: a worker that read it only once started would
    // already see this call's and wait for the next one, leaving this call to the caller.
    const uint32_t before = generation_of(claim_.load(std::memory_order_relaxed));
    for (unsigned i = 1; i < threads_; ++i)
      workers_.emplace_back([this, before] { worker(before); });
  }
  fn_ = &fn;
  errors_.assign(tasks, nullptr);
  unfinished_.store(tasks, std::memory_order_relaxed);
  const uint32_t generation = generation_of(claim_.load(std::memory_order_relaxed)) + 1;
  // Publishes fn_ and errors_ to the workers (their claims acquire claim_).
  claim_.store((uint64_t{generation} << 32) | tasks, std::memory_order_release);  // [0, tasks)
  {
    // Orders the store above before a sleeping worker's check of its wait predicate.
    const std::lock_guard<std::mutex> lock(mutex_);
  }
  wake_.notify_all();
  work(generation, true);
  // A worker still running a task may have lost its core (more threads than cores): after a
  // short spin, yield to it rather than spin through its time slice.
  for (uint32_t i = 0; unfinished_.load(std::memory_order_acquire) != 0; ++i) {
    if (i < 4096) {
      relax();
    } else {
      std::this_thread::yield();
    }
  }
  for (const std::exception_ptr& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

void TaskPool::work(uint32_t generation, bool caller) {
  uint64_t claim = claim_.load(std::memory_order_acquire);
  for (;;) {
    // The low word holds the unclaimed tasks [lo, hi).
    const uint64_t lo = (claim >> 16) & 0xFFFFu;
    const uint64_t hi = claim & 0xFFFFu;
    if (generation_of(claim) != generation || lo == hi) return;
    const uint64_t next = caller ? claim + (uint64_t{1} << 16) : claim - 1;
    if (!claim_.compare_exchange_weak(claim, next, std::memory_order_acquire)) continue;
    const std::size_t task = caller ? lo : hi - 1;
    try {
      (*fn_)(task);
    } catch (...) {
      errors_[task] = std::current_exception();
    }
    unfinished_.fetch_sub(1, std::memory_order_release);
    claim = claim_.load(std::memory_order_acquire);
  }
}

void TaskPool::worker(uint32_t seen) {
  for (;;) {
    uint32_t generation = seen;
    const auto spin_end = std::chrono::steady_clock::now() + kSpin;
    for (uint32_t i = 1; generation == seen; ++i) {
      if (stop_.load(std::memory_order_relaxed)) return;
      relax();
      generation = generation_of(claim_.load(std::memory_order_acquire));
      if (i % 64 == 0 && std::chrono::steady_clock::now() > spin_end) break;
    }
    if (generation == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] {
        generation = generation_of(claim_.load(std::memory_order_acquire));
        return stop_.load(std::memory_order_relaxed) || generation != seen;
      });
      if (stop_.load(std::memory_order_relaxed)) return;
    }
    seen = generation;
    work(generation, false);
  }
}

}  // namespace s2
