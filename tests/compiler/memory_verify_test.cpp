// The plan verifier (compiler/memory/verify_plan.h): accepts safe plans, rejects each kind of
// broken one with a message naming what is wrong, and agrees with a brute-force oracle.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "compiler/memory/verify_plan.h"
#include "isa/common/errors.h"

namespace s2::memory {
namespace {

using isa::TensorRole;

Buffer buffer(const std::string& name, uint64_t size, uint32_t first, uint32_t last,
              bool persistent = false) {
  return {name,      persistent ? TensorRole::Weight : TensorRole::Activation, size, first, last,
          persistent};
}

// A plan with the given addresses: no persistent region, the arena from 0 to `arena`.
MemoryPlan plan_of(std::vector<uint64_t> address, uint64_t arena, uint64_t persistent = 0) {
  MemoryPlan p;
  p.planner = "hand-made";
  p.alignment = 64;
  p.address = std::move(address);
  p.persistent_bytes = persistent;
  p.arena_base = persistent;
  p.arena_size = arena;
  p.dram_size = persistent + arena;
  return p;
}

// The verifier's message, or "" when it accepted the plan.
std::string rejection(const std::vector<Buffer>& buffers, const MemoryPlan& plan) {
  try {
    verify_plan(buffers, plan);
    return "";
  } catch (const InternalError& e) {
    return e.what();
  }
}

void expect_rejected(const std::vector<Buffer>& buffers, const MemoryPlan& plan,
                     const std::vector<std::string>& phrases) {
  const std::string message = rejection(buffers, plan);
  ASSERT_FALSE(message.empty()) << "accepted";
  for (const std::string& phrase : phrases)
    EXPECT_NE(message.find(phrase), std::string::npos) << "'" << phrase << "' not in: " << message;
}

TEST(MemoryVerify, RejectsAHandMadeOverlapNamingBothTensorsTheStepAndTheRanges) {
  const std::vector<Buffer> buffers = {buffer("conv1.out", 128, 1, 5),
                                       buffer("relu1.grad", 100, 3, 8)};
  expect_rejected(buffers, plan_of({0, 64}, 192),
                  {"memory plan (hand-made)", "'conv1.out' [0, 128)", "'relu1.grad' [64, 192)",
                   "live at step 3", "overlap"});
}

TEST(MemoryVerify, AcceptsSharingAcrossTimeAndAdjacentRanges) {
  // Same address, lifetimes that do not meet.
  EXPECT_EQ(rejection({buffer("a", 64, 0, 2), buffer("b", 64, 3, 4)}, plan_of({0, 0}, 64)), "");
  // Same time, ranges that touch but do not overlap.
  EXPECT_EQ(rejection({buffer("a", 64, 0, 2), buffer("b", 64, 0, 2)}, plan_of({0, 64}, 128)), "");
  // Zero-size buffers occupy nothing.
  EXPECT_EQ(rejection({buffer("a", 64, 0, 2), buffer("z", 0, 0, 2)}, plan_of({0, 0}, 64)), "");
}

TEST(MemoryVerify, LifetimesMeetingAtOneStepConflict) {
  expect_rejected({buffer("a", 64, 0, 3), buffer("b", 64, 3, 4)}, plan_of({0, 0}, 64),
                  {"'a'", "'b'", "step 3"});
}

TEST(MemoryVerify, ChecksBothNeighboursInAddressOrder) {
  // b and c are live and disjoint with a gap between them; d arrives later.
  const std::vector<Buffer> buffers = {buffer("b", 64, 0, 9), buffer("c", 128, 0, 9),
                                       buffer("d", 64, 5, 6)};
  // d starts inside c, the buffer below it in address order.
  expect_rejected(buffers, plan_of({0, 128, 192}, 256),
                  {"'c' [128, 256)", "'d' [192, 256)", "step 5"});
  // d starts in the gap and reaches into c, the buffer above it.
  std::vector<Buffer> wide = buffers;
  wide[2].size = 128;
  expect_rejected(wide, plan_of({0, 128, 64}, 256), {"'c' [128, 256)", "'d' [64, 192)", "step 5"});
  // d fits the gap exactly.
  EXPECT_EQ(rejection(buffers, plan_of({0, 128, 64}, 256)), "");
}

TEST(MemoryVerify, PersistentBuffersConflictAtEveryStep) {
  const std::vector<Buffer> buffers = {buffer("w", 64, 0, 0, true), buffer("x", 64, 7, 9)};
  MemoryPlan plan = plan_of({0, 64}, 64, 64);
  EXPECT_EQ(rejection(buffers, plan), "");
  plan.address[1] = 0;  // an arena buffer inside the persistent region, at step 7
  expect_rejected(buffers, plan, {"'w' (persistent) [0, 64)", "'x' [0, 64)", "step 7"});
}

TEST(MemoryVerify, RejectsMisalignmentAndBuffersOutsideTheirRegion) {
  const std::vector<Buffer> one = {buffer("x", 64, 0, 1)};
  expect_rejected(one, plan_of({32}, 128), {"'x'", "address 32", "not aligned to 64"});
  expect_rejected(one, plan_of({64}, 64), {"'x' [64, 128)", "outside the arena [0, 64)"});
  expect_rejected({buffer("w", 100, 0, 0, true)}, plan_of({0}, 0, 64),
                  {"'w' (persistent) [0, 128)", "outside the persistent region [0, 64)"});
  expect_rejected({buffer("x", 64, 0, 0)}, plan_of({0}, 64, 64), {"'x'", "outside the arena"});
}

TEST(MemoryVerify, RejectsAnInconsistentLayout) {
  const std::vector<Buffer> one = {buffer("x", 64, 0, 1)};
  MemoryPlan plan = plan_of({0}, 64);
  plan.dram_size = 128;
  expect_rejected(one, plan, {"dram size 128", "arena base 0 + arena size 64"});
  plan = plan_of({0}, 64);
  plan.address.push_back(0);
  expect_rejected(one, plan, {"2 addresses for 1 buffers"});
  plan = plan_of({0}, 100);
  expect_rejected(one, plan, {"arena size 100", "not a multiple of 64"});
  plan = plan_of({64}, 64, 128);
  plan.arena_base = 64;
  plan.dram_size = 128;
  expect_rejected(one, plan, {"arena base 64", "inside the persistent region [0, 128)"});
  plan = plan_of({0}, 64);
  plan.alignment = 48;
  expect_rejected(one, plan, {"alignment 48"});
  expect_rejected({buffer("late", 64, 4, 2)}, plan_of({0}, 64), {"'late'", "ends at step 2"});
  expect_rejected({buffer("huge", ~uint64_t{0} - 10, 0, 0)}, plan_of({0}, 64), {"'huge'"});
}

// Random plans, often broken: the sweep must agree with checking every pair.
TEST(MemoryVerify, AgreesWithBruteForceOnRandomPlans) {
  std::mt19937_64 rng(5);
  int rejected = 0, accepted = 0;
  for (int round = 0; round < 400; ++round) {
    const size_t n = 1 + rng() % 12;
    std::vector<Buffer> buffers;
    std::vector<uint64_t> address;
    for (size_t i = 0; i < n; ++i) {
      const auto first = static_cast<uint32_t>(rng() % 10);
      buffers.push_back(buffer("t" + std::to_string(i), 64 * (rng() % 4), first,
                               first + static_cast<uint32_t>(rng() % 4)));
      address.push_back(64 * (rng() % 8));
    }
    bool overlap = false;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        const Buffer &x = buffers[i], &y = buffers[j];
        overlap |= x.size > 0 && y.size > 0 && x.first <= y.last && y.first <= x.last &&
                   address[i] < address[j] + y.size && address[j] < address[i] + x.size;
      }
    const std::string message = rejection(buffers, plan_of(address, 64 * 12));
    EXPECT_EQ(!message.empty(), overlap) << "round " << round << ": " << message;
    if (!message.empty()) {
      EXPECT_NE(message.find("overlap in address"), std::string::npos) << message;
    }
    (overlap ? rejected : accepted)++;
  }
  EXPECT_GT(rejected, 50);
  EXPECT_GT(accepted, 50);
}

}  // namespace
}  // namespace s2::memory
