// Static memory planning (compiler/memory/planner.h): every planner's plan is safe, the reuse
// planners beat no reuse, search never loses to greedy, plans are reproducible, alignment and
// the persistent layout are honoured, bad options are user errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/memory/planner.h"
#include "compiler/memory/planner_registry.h"
#include "compiler/memory/synthetic.h"
#include "isa/common/errors.h"

namespace s2::memory {
namespace {

using isa::TensorRole;

Buffer buffer(const std::string& name, uint64_t size, uint32_t first, uint32_t last,
              TensorRole role = TensorRole::Activation) {
  return {name, role, size, first, last, false};
}

Buffer persistent(const std::string& name, uint64_t size) {
  return {name, TensorRole::Weight, size, 0, 0, true};
}

PlanOptions options(const std::string& planner, uint64_t alignment = 64, uint64_t seed = 1) {
  PlanOptions o;
  o.planner = planner;
  o.alignment = alignment;
  o.seed = seed;
  o.budget_ms = 5;
  return o;
}

// An oracle independent of verify_plan(): every pair, brute force.
void expect_safe(const std::vector<Buffer>& buffers, const MemoryPlan& plan) {
  ASSERT_EQ(plan.address.size(), buffers.size());
  const uint64_t a = plan.alignment;
  EXPECT_EQ(plan.arena_base % a, 0u);
  EXPECT_EQ(plan.arena_size % a, 0u);
  EXPECT_EQ(plan.dram_size, plan.arena_base + plan.arena_size);
  EXPECT_EQ(plan.lower_bound, live_peak(buffers, a));
  EXPECT_GE(plan.arena_size, plan.lower_bound);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const uint64_t end_i = plan.address[i] + align_up(buffers[i].size, a);
    EXPECT_EQ(plan.address[i] % a, 0u) << buffers[i].name;
    EXPECT_LE(end_i, buffers[i].persistent ? plan.persistent_bytes : plan.dram_size);
    if (!buffers[i].persistent) {
      EXPECT_GE(plan.address[i], plan.arena_base) << buffers[i].name;
    }
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const Buffer &x = buffers[i], &y = buffers[j];
      const bool together =
          x.persistent || y.persistent || (x.first <= y.last && y.first <= x.last);
      const uint64_t end_j = plan.address[j] + align_up(y.size, a);
      const bool apart = end_i <= plan.address[j] || end_j <= plan.address[i];
      EXPECT_TRUE(!together || apart || x.size == 0 || y.size == 0)
          << plan.planner << ": '" << x.name << "' and '" << y.name << "' overlap";
    }
  }
}

TEST(MemoryPlanner, RegistryHasTheFourPlanners) {
  EXPECT_EQ(planner_registry().names(),
            (std::vector<std::string>{"none", "grad-reuse", "greedy", "search"}));
  EXPECT_EQ(planner_registry().find("bogus"), nullptr);
}

TEST(MemoryPlanner, UnknownPlannerIsAUserErrorListingTheKnownOnes) {
  try {
    plan_memory({buffer("a", 10, 0, 0)}, options("bogus"));
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'bogus'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("none, grad-reuse, greedy, search"), std::string::npos)
        << e.what();
  }
}

TEST(MemoryPlanner, BadOptionsAreUserErrors) {
  for (const uint64_t alignment : {0u, 3u, 48u, 100u}) {
    try {
      plan_memory({}, options("greedy", alignment));
      FAIL() << "alignment " << alignment << " accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("alignment " + std::to_string(alignment)),
                std::string::npos)
          << e.what();
    }
  }
  PlanOptions o = options("search");
  o.budget_ms = -1;
  EXPECT_THROW(plan_memory({}, o), UserError);
}

TEST(MemoryPlanner, ALifetimeEndingBeforeItStartsIsAnInternalErrorNamingTheBuffer) {
  try {
    plan_memory({buffer("backwards", 10, 5, 4)}, options("greedy"));
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("'backwards'"), std::string::npos) << e.what();
  }
}

TEST(MemoryPlanner, EveryPlanIsVerifiedSoABrokenPlannerIsCaught) {
  PlannerRegistry registry("memory planner");
  registry.add("everything-at-0",
               {"a broken planner", [](const ArenaProblem& p, const PlanOptions&) {
                  return std::vector<uint64_t>(p.items.size(), 0);
                }});
  const std::vector<Buffer> buffers = {buffer("early", 64, 0, 1), buffer("x", 64, 2, 5),
                                       buffer("y", 64, 4, 6)};
  try {
    plan_memory(buffers, options("everything-at-0"), registry);
    FAIL() << "no error";
  } catch (const InternalError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("memory plan (everything-at-0): 'x' [0, 64) and 'y' [0, 64) are both "
                           "live at step 4"),
              std::string::npos)
        << message;
  }
  // Its plan would be fine if nothing met in time.
  EXPECT_EQ(plan_memory({buffers[0], buffers[1]}, options("everything-at-0"), registry).arena_size,
            64u);
}

TEST(MemoryPlanner, RandomInstancesGiveSafePlansWithEveryPlanner) {
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    const auto buffers = random_buffers(seed, 1 + seed % 150, static_cast<uint32_t>(1 + seed % 60));
    for (const std::string& name : planner_registry().names()) {
      SCOPED_TRACE(name + " seed " + std::to_string(seed));
      const uint64_t alignment = uint64_t{1} << (seed % 13);
      const MemoryPlan plan = plan_memory(buffers, options(name, alignment, seed));
      EXPECT_EQ(plan.planner, name);
      EXPECT_EQ(plan.alignment, alignment);
      expect_safe(buffers, plan);
    }
  }
}

TEST(MemoryPlanner, ReusePlannersBeatNoReuseAndSearchNeverLosesToGreedy) {
  int search_improved = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto buffers = random_buffers(seed, 120, 80);
    const uint64_t none = plan_memory(buffers, options("none")).arena_size;
    const uint64_t grads = plan_memory(buffers, options("grad-reuse")).arena_size;
    const uint64_t greedy = plan_memory(buffers, options("greedy")).arena_size;
    const uint64_t search = plan_memory(buffers, options("search", 64, seed)).arena_size;
    EXPECT_LE(grads, none);
    EXPECT_LE(greedy, none);
    EXPECT_LE(greedy, grads);
    EXPECT_LE(search, greedy);
    search_improved += search < greedy;
  }
  // The search must actually search: greedy is not optimal on these instances.
  EXPECT_GT(search_improved, 10);
}

TEST(MemoryPlanner, GreedyIsWithinOnePercentOfTheBoundOnTrainingLifetimes) {
  for (const bool immediate : {true, false}) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      ResNetLike spec;
      spec.update_immediate = immediate;
      spec.bottleneck = seed % 2 == 0;
      spec.blocks = {static_cast<uint32_t>(seed % 3 + 1), 2, static_cast<uint32_t>(seed % 4 + 1),
                     2};
      spec.batch = 1 + seed % 8;
      // Exact float32 sizes, as a compiled model has; with update-immediate also jittered ones.
      spec.jitter = immediate && seed > 4 ? 0.3 : 0.0;
      spec.seed = seed;
      const auto buffers = resnet_like_buffers(spec);
      EXPECT_LE(plan_memory(buffers, options("greedy")).ratio(), 1.01)
          << "seed " << seed << " immediate " << immediate;
    }
  }
}

// Weight gradients that all live until the end, with jittered sizes, are the hard case for
// greedy (up to ~4% above the bound here); the search must close most of that gap.
TEST(MemoryPlanner, SearchClosesTheGapOnHardTrainingLifetimes) {
  double greedy_sum = 0, search_sum = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    ResNetLike spec;
    spec.update_immediate = false;
    spec.jitter = 0.3;
    spec.seed = seed;
    spec.bottleneck = seed % 2 == 0;
    const auto buffers = resnet_like_buffers(spec);
    const MemoryPlan greedy = plan_memory(buffers, options("greedy"));
    PlanOptions o = options("search", 64, seed);
    o.budget_ms = 20;
    const MemoryPlan search = plan_memory(buffers, o);
    EXPECT_LE(search.arena_size, greedy.arena_size) << "seed " << seed;
    greedy_sum += greedy.ratio();
    search_sum += search.ratio();
  }
  EXPECT_GT(greedy_sum / 8, 1.01);  // the instances are hard...
  EXPECT_LT(search_sum / 8, 1.01);  // ...and the search gets within 1% on average
}

TEST(MemoryPlanner, SameSeedGivesTheSamePlan) {
  ResNetLike spec;  // an instance where the search keeps improving for its whole budget
  spec.update_immediate = false;
  spec.jitter = 0.3;
  spec.seed = 2;
  const auto buffers = resnet_like_buffers(spec);
  PlanOptions o = options("search", 64, 7);
  o.budget_ms = 20;
  const MemoryPlan a = plan_memory(buffers, o);
  const MemoryPlan b = plan_memory(buffers, o);
  EXPECT_EQ(a.address, b.address);
  EXPECT_EQ(a.arena_size, b.arena_size);
  const MemoryPlan greedy = plan_memory(buffers, options("greedy"));
  EXPECT_LT(a.arena_size, greedy.arena_size);
  o.budget_ms = 0;
  EXPECT_EQ(plan_memory(buffers, o).address, greedy.address);
  for (const std::string& name : planner_registry().names())
    EXPECT_EQ(plan_memory(buffers, options(name)).address,
              plan_memory(buffers, options(name)).address)
        << name;
}

TEST(MemoryPlanner, PersistentBuffersComeFirstInOrderAndTheArenaAfterThem) {
  const std::vector<Buffer> buffers = {persistent("w1", 100), buffer("x", 10, 0, 3),
                                       persistent("w2", 64), persistent("empty", 0),
                                       persistent("w3", 1)};
  const MemoryPlan plan = plan_memory(buffers, options("greedy"));
  EXPECT_EQ(plan.address, (std::vector<uint64_t>{0, 256, 128, 192, 192}));
  EXPECT_EQ(plan.persistent_bytes, 256u);
  EXPECT_EQ(plan.arena_base, 256u);
  EXPECT_EQ(plan.arena_size, 64u);
  EXPECT_EQ(plan.lower_bound, 64u);
  EXPECT_EQ(plan.dram_size, 320u);
}

TEST(MemoryPlanner, AlignmentRoundsEveryAddressAndSize) {
  const std::vector<Buffer> buffers = {persistent("w", 5), buffer("a", 1, 0, 1),
                                       buffer("b", 4097, 1, 2), buffer("c", 3, 0, 0)};
  for (const uint64_t alignment : {1u, 8u, 64u, 4096u}) {
    for (const std::string& name : planner_registry().names()) {
      const MemoryPlan plan = plan_memory(buffers, options(name, alignment));
      expect_safe(buffers, plan);
      for (const uint64_t address : plan.address)
        EXPECT_EQ(address % alignment, 0u) << name;
    }
  }
  const MemoryPlan page = plan_memory(buffers, options("greedy", 4096));
  EXPECT_EQ(page.arena_base, 4096u);
  EXPECT_EQ(page.lower_bound, 4096u * 3);  // a and b at step 1: 4096 + 8192
  EXPECT_EQ(page.arena_size, 4096u * 3);
}

TEST(MemoryPlanner, SmallExampleHasTheExpectedArenas) {
  // a and b never meet, c meets both: reuse stacks c on one slot shared by a and b.
  const std::vector<Buffer> buffers = {buffer("a", 100, 0, 1), buffer("b", 100, 2, 3),
                                       buffer("c", 50, 1, 2, TensorRole::Gradient)};
  EXPECT_EQ(plan_memory(buffers, options("none")).arena_size, 320u);
  EXPECT_EQ(plan_memory(buffers, options("grad-reuse")).arena_size, 320u);
  for (const char* name : {"greedy", "search"}) {
    const MemoryPlan plan = plan_memory(buffers, options(name));
    EXPECT_EQ(plan.lower_bound, 192u);
    EXPECT_EQ(plan.arena_size, 192u) << name;
    EXPECT_EQ(plan.address[0], plan.address[1]) << name;
  }
}

TEST(MemoryPlanner, GradReuseSharesOnlyBetweenGradients) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto buffers = random_buffers(seed, 80, 30);
    const MemoryPlan plan = plan_memory(buffers, options("grad-reuse"));
    auto is_gradient = [](const Buffer& b) {
      return b.role == TensorRole::Gradient || b.role == TensorRole::WeightGradient;
    };
    for (size_t i = 0; i < buffers.size(); ++i) {
      for (size_t j = 0; j < buffers.size(); ++j) {
        const Buffer &x = buffers[i], &y = buffers[j];
        if (i == j || x.persistent || y.persistent || x.size == 0 || y.size == 0) continue;
        if (is_gradient(x) && is_gradient(y)) continue;
        const bool apart = plan.address[i] + align_up(x.size, 64) <= plan.address[j] ||
                           plan.address[j] + align_up(y.size, 64) <= plan.address[i];
        EXPECT_TRUE(apart) << "'" << x.name << "' shares space with '" << y.name << "'";
      }
    }
  }
}

TEST(MemoryPlanner, EdgeCases) {
  for (const std::string& name : planner_registry().names()) {
    SCOPED_TRACE(name);
    const MemoryPlan empty = plan_memory({}, options(name));
    EXPECT_EQ(empty.dram_size, 0u);
    EXPECT_EQ(empty.arena_size, 0u);
    EXPECT_EQ(empty.lower_bound, 0u);
    EXPECT_EQ(empty.ratio(), 1.0);

    const MemoryPlan only = plan_memory({persistent("w", 10), persistent("m", 70)}, options(name));
    EXPECT_EQ(only.address, (std::vector<uint64_t>{0, 64}));
    EXPECT_EQ(only.arena_base, 192u);
    EXPECT_EQ(only.arena_size, 0u);
    EXPECT_EQ(only.dram_size, 192u);

    const std::vector<Buffer> zeros = {buffer("z1", 0, 0, 5), buffer("x", 10, 0, 5),
                                       buffer("z2", 0, 2, 3)};
    const MemoryPlan z = plan_memory(zeros, options(name));
    EXPECT_EQ(z.arena_size, 64u);
    EXPECT_EQ(z.lower_bound, 64u);
    expect_safe(zeros, z);

    // Everything live at the single step: no reuse is possible, every planner needs the sum.
    const std::vector<Buffer> one_step = {buffer("a", 10, 0, 0), buffer("b", 200, 0, 0),
                                          buffer("c", 64, 0, 0, TensorRole::Gradient)};
    const MemoryPlan one = plan_memory(one_step, options(name));
    EXPECT_EQ(one.arena_size, 64u + 256u + 64u);
    EXPECT_EQ(one.ratio(), 1.0);
    expect_safe(one_step, one);
  }
}

}  // namespace
}  // namespace s2::memory
