#pragma once
// The controller's dependency state: which instructions may issue, given the explicit
// dependencies of the executable, the fences (barrier, end) and the decode window.
//
// Contract
// --------
// * An instruction issues once every instruction it depends on has completed, it lies in the
//   decode window (the `window` instructions starting at the oldest one not yet completed), and
//   no earlier fence is still incomplete. A fence issues only when every earlier instruction
//   has completed. window == 1 gives a strictly sequential run.
// * take_ready() returns the newly issuable instructions in program order and marks them
//   issued; complete() marks an issued instruction done.
// * A dependency on an index outside the program can never be satisfied. When nothing is in
//   flight, nothing can issue and instructions remain, the run is deadlocked: stuck() lists
//   every decoded, unissued instruction with the dependencies it still waits for. Plain C++,
//   so tests can feed it a state the container validator would reject (cycles).

#include <cstdint>
#include <string>
#include <vector>

namespace s2::sim::top {

struct TrackedInstruction {
  std::vector<uint32_t> deps;
  bool fence = false;  // barrier or end
};

struct StuckInstruction {
  uint32_t index = 0;
  std::vector<uint32_t> waiting_for;  // incomplete (or nonexistent) dependencies
  bool behind_fence = false;          // a fence before it, or it is a fence with work before it
};

class DependencyTracker {
 public:
  DependencyTracker(std::vector<TrackedInstruction> program, uint32_t window);

  std::vector<uint32_t> take_ready();
  void complete(uint32_t index);  // an internal error unless `index` is issued and not done

  bool finished() const { return completed_ == program_.size(); }
  size_t in_flight() const { return in_flight_; }
  bool deadlocked() const;
  std::vector<StuckInstruction> stuck() const;

 private:
  enum class State : uint8_t { Waiting, Issued, Done };
  bool depends_done(uint32_t index) const { return unmet_[index] == 0; }

  std::vector<TrackedInstruction> program_;
  uint32_t window_;
  std::vector<State> state_;
  std::vector<uint32_t> unmet_;                    // dependencies not yet completed
  std::vector<std::vector<uint32_t>> dependents_;  // reverse edges
  uint32_t head_ = 0;                              // oldest instruction not completed
  size_t completed_ = 0;
  size_t in_flight_ = 0;
};

// "instruction 3 waits for 5, 7; instruction 5 waits for 3" (for error messages).
std::string describe_stuck(const std::vector<StuckInstruction>& stuck);

}  // namespace s2::sim::top
