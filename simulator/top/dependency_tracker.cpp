#include "simulator/top/dependency_tracker.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::sim::top {

DependencyTracker::DependencyTracker(std::vector<TrackedInstruction> program, uint32_t window)
    : program_(std::move(program)),
      window_(std::max<uint32_t>(window, 1)),
      state_(program_.size(), State::Waiting),
      unmet_(program_.size(), 0),
      dependents_(program_.size()) {
  for (size_t i = 0; i < program_.size(); ++i) {
    for (uint32_t d : program_[i].deps) {
      ++unmet_[i];  // a dependency outside the program stays unmet forever
      if (d < program_.size()) dependents_[d].push_back(static_cast<uint32_t>(i));
    }
  }
}

std::vector<uint32_t> DependencyTracker::take_ready() {
  std::vector<uint32_t> ready;
  const size_t end = std::min<size_t>(program_.size(), size_t{head_} + window_);
  for (size_t i = head_; i < end; ++i) {
    if (state_[i] != State::Waiting) continue;
    const TrackedInstruction& inst = program_[i];
    if (inst.fence) {
      // Everything before it is done exactly when the head has reached it.
      if (i == head_ && depends_done(static_cast<uint32_t>(i)))
        ready.push_back(static_cast<uint32_t>(i));
      break;  // nothing after an incomplete fence may issue
    }
    if (depends_done(static_cast<uint32_t>(i))) ready.push_back(static_cast<uint32_t>(i));
  }
  for (uint32_t i : ready)
    state_[i] = State::Issued;
  in_flight_ += ready.size();
  return ready;
}

void DependencyTracker::complete(uint32_t index) {
  S2_CHECK(
      index < program_.size() && state_[index] == State::Issued,
      "controller: completion of instruction " + std::to_string(index) + " that is not in flight");
  state_[index] = State::Done;
  --in_flight_;
  ++completed_;
  for (uint32_t d : dependents_[index])
    --unmet_[d];  // one entry per listed edge
  while (head_ < program_.size() && state_[head_] == State::Done)
    ++head_;
}

bool DependencyTracker::deadlocked() const {
  return !finished() && in_flight_ == 0;
}

std::vector<StuckInstruction> DependencyTracker::stuck() const {
  std::vector<StuckInstruction> out;
  const size_t end = std::min<size_t>(program_.size(), size_t{head_} + window_);
  bool fence_before = false;
  for (size_t i = head_; i < end; ++i) {
    if (state_[i] != State::Waiting) continue;
    StuckInstruction s;
    s.index = static_cast<uint32_t>(i);
    for (uint32_t d : program_[i].deps)
      if (d >= program_.size() || state_[d] != State::Done) s.waiting_for.push_back(d);
    s.behind_fence = fence_before || (program_[i].fence && i != head_);
    out.push_back(std::move(s));
    if (program_[i].fence) fence_before = true;
  }
  return out;
}

std::string describe_stuck(const std::vector<StuckInstruction>& stuck) {
  std::string text;
  for (const StuckInstruction& s : stuck) {
    if (!text.empty()) text += "; ";
    text += "instruction " + std::to_string(s.index);
    if (s.waiting_for.empty()) {
      text += s.behind_fence ? " waits behind a fence" : " waits";
      continue;
    }
    text += " waits for";
    for (size_t k = 0; k < s.waiting_for.size(); ++k)
      text += (k ? ", " : " ") + std::to_string(s.waiting_for[k]);
  }
  return text;
}

}  // namespace s2::sim::top
