// Schedulers (update-last, update-immediate, memory-aware) on the zoo's training steps: valid
// orders, the phase structure each promises, and the live-bytes peak each reaches; lifetimes
// on a hand-built step; the errors for an unknown scheduler and a broken order.
#include "compiler/schedule/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/ops/registry.h"
#include "compiler/schedule/lifetimes.h"
#include "compiler/zoo/zoo.h"
#include "isa/common/errors.h"

namespace s2::schedule {
namespace {

using ir::OpCategory;
using ir::OpId;

ir::Graph training_step(const std::string& model, int64_t batch, int64_t hw) {
  zoo::ModelOptions o;
  o.batch = batch;
  o.height = o.width = hw;
  o.classes = 10;
  ir::Graph g = zoo::build_model(model, o);
  ir::build_training_step(g, ir::OptimizerOptions{});
  return g;
}

// Position of every op in `order`, checking that each op appears once and after each of its
// predecessors (written independently of check_order, which the schedulers use).
std::vector<size_t> expect_valid_order(const ir::Graph& g, const std::vector<OpId>& order) {
  std::vector<size_t> pos(g.num_ops(), SIZE_MAX);
  EXPECT_EQ(order.size(), g.num_ops());
  for (size_t s = 0; s < order.size(); ++s) {
    EXPECT_EQ(pos.at(order[s].index()), SIZE_MAX) << g.op(order[s]).name << " twice";
    pos.at(order[s].index()) = s;
  }
  const auto pred = g.predecessors();
  for (size_t i = 0; i < g.num_ops(); ++i)
    for (OpId p : pred[i])
      EXPECT_LT(pos[p.index()], pos[i]) << g.op(p).name << " must precede " << g.op(OpId(i)).name;
  return pos;
}

// Every op `op` transitively waits for.
std::vector<bool> ancestors(const ir::Graph& g, OpId op) {
  const auto pred = g.predecessors();
  std::vector<bool> seen(g.num_ops(), false);
  std::vector<OpId> stack = pred[op.index()];
  while (!stack.empty()) {
    const OpId p = stack.back();
    stack.pop_back();
    if (seen[p.index()]) continue;
    seen[p.index()] = true;
    stack.insert(stack.end(), pred[p.index()].begin(), pred[p.index()].end());
  }
  return seen;
}

// The op computing tensor t, through views.
OpId computing_op(const ir::Graph& g, ir::TensorId t) {
  OpId p = g.tensor(t).producer;
  while (p.valid() && ir::op_schema(g.op(p).type).fusion == ir::FusionClass::View)
    p = g.tensor(g.op(p).inputs.at(0)).producer;
  return p;
}

uint64_t peak(const ir::Graph& g, const std::string& scheduler) {
  return memory::live_peak(compute_lifetimes(g, schedule_ops(g, scheduler)).buffers, 64);
}

double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

class ZooSchedule : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooSchedule, EverySchedulerGivesAValidDeterministicOrder) {
  const ir::Graph g = training_step(GetParam(), 2, 16);
  for (const std::string& name : scheduler_registry().names()) {
    SCOPED_TRACE(name);
    const std::vector<OpId> order = schedule_ops(g, name);
    expect_valid_order(g, order);
    EXPECT_EQ(order, schedule_ops(g, name));
  }
}

TEST_P(ZooSchedule, UpdateLastRunsForwardThenBackwardThenUpdates) {
  const ir::Graph g = training_step(GetParam(), 2, 16);
  const std::vector<OpId> order = schedule_ops(g, "update-last");
  auto phase = [&](OpId op) {
    const OpCategory c = g.op(op).category;
    return c == OpCategory::Forward ? 0 : c == OpCategory::WeightUpdate ? 2 : 1;
  };
  size_t updates = 0;
  for (size_t s = 1; s < order.size(); ++s)
    EXPECT_LE(phase(order[s - 1]), phase(order[s]))
        << g.op(order[s - 1]).name << " before " << g.op(order[s]).name;
  for (OpId op : order)
    updates += phase(op) == 2;
  EXPECT_GT(updates, 0u);
  EXPECT_EQ(phase(order.back()), 2);
}

TEST_P(ZooSchedule, UpdateImmediatePlacesEachSgdRightAfterItsGradient) {
  const ir::Graph g = training_step(GetParam(), 2, 16);
  const std::vector<OpId> order = schedule_ops(g, "update-immediate");
  const std::vector<size_t> pos = expect_valid_order(g, order);
  const auto pred = g.predecessors();
  size_t sgds = 0;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& op = g.op(OpId(i));
    if (op.type != ir::OpType::Sgd) continue;
    ++sgds;
    const OpId grad = computing_op(g, op.inputs.at(1));
    ASSERT_TRUE(grad.valid()) << op.name;
    // Nothing unrelated between the gradient's producer and the update: only ops the update
    // waits for (the other readers of the weight and what they need) and other updates that
    // became ready with it (batch_norm_bwd completes gamma's and beta's gradients at once).
    const std::vector<bool> needed = ancestors(g, OpId(i));
    for (size_t s = pos[grad.index()] + 1; s < pos[i]; ++s)
      EXPECT_TRUE(needed[order[s].index()] || g.op(order[s]).category == OpCategory::WeightUpdate)
          << g.op(order[s]).name << " runs between " << g.op(grad).name << " and " << op.name;
    // After its last predecessor, only such sibling updates may go first.
    size_t last_pred = 0;
    for (OpId p : pred[i])
      last_pred = std::max(last_pred, pos[p.index()]);
    for (size_t s = last_pred + 1; s < pos[i]; ++s)
      EXPECT_EQ(g.op(order[s]).category, OpCategory::WeightUpdate)
          << g.op(order[s]).name << " delays " << op.name;
  }
  EXPECT_GT(sgds, 0u);
}

TEST_P(ZooSchedule, PeaksImproveFromUpdateLastToImmediateToMemoryAware) {
  const ir::Graph g = training_step(GetParam(), 2, 16);
  const uint64_t last = peak(g, "update-last");
  const uint64_t immediate = peak(g, "update-immediate");
  EXPECT_LT(immediate, last);
  EXPECT_LE(peak(g, "memory-aware"), immediate);
}

INSTANTIATE_TEST_SUITE_P(Models, ZooSchedule, ::testing::Values("mlp", "lenet5", "resnet18"));

TEST(Schedule, Resnet18Batch4LivePeaks) {
  const ir::Graph g = training_step("resnet18", 4, 32);
  const uint64_t last = peak(g, "update-last");
  const uint64_t immediate = peak(g, "update-immediate");
  const uint64_t aware = peak(g, "memory-aware");
  std::printf(
      "resnet18 batch 4 3x32x32 live peak: update-last %.3f MiB, update-immediate %.3f "
      "MiB, memory-aware %.3f MiB\n",
      mib(last), mib(immediate), mib(aware));
  // The weight gradients (~42.6 MiB for resnet18's 11.2M parameters) no longer pile up: the
  // issue asks for an arena 25% smaller, and the planners pack close to this bound.
  EXPECT_LT(static_cast<double>(immediate), 0.75 * static_cast<double>(last));
  EXPECT_LE(aware, immediate);
}

// x -> fc (gemm with w) -> h; h_t = transpose(h); relu(h) -> r -> softmax_ce -> loss;
// gw = gemm(h_t, x) as a weight gradient; sgd(w, gw, v) in place.
struct Hand {
  ir::Graph g{"hand"};
  ir::TensorId x, w, v, labels, unused, h, ht, r, loss, gw;
};

Hand hand_graph() {
  Hand t;
  ir::Graph& g = t.g;
  using ir::TensorRole;
  t.x = g.add_parameter("x", TensorRole::Input, ir::DType::F32, {2, 3});
  t.w = g.add_parameter("w", TensorRole::Weight, ir::DType::F32, {4, 3});
  t.v = g.add_parameter("v", TensorRole::OptimizerState, ir::DType::F32, {4, 3});
  t.labels = g.add_parameter("labels", TensorRole::Label, ir::DType::I32, {2});
  t.unused = g.add_parameter("unused", TensorRole::Scratch, ir::DType::F32, {5});
  t.h = g.add(ir::OpType::Gemm, "fc", OpCategory::Forward, {t.x, t.w}, {{"trans_b", int64_t{1}}});
  t.ht = g.add(ir::OpType::Transpose, "h_t", OpCategory::Forward, {t.h},
               {{"perm", std::vector<int64_t>{1, 0}}});
  t.r = g.add(ir::OpType::Relu, "relu", OpCategory::Forward, {t.h});
  t.loss = g.add(ir::OpType::SoftmaxCe, "loss", OpCategory::Forward, {t.r, t.labels});
  g.set_loss(t.loss);
  t.gw = g.add(ir::OpType::Gemm, "gw", OpCategory::WeightGrad, {t.ht, t.x});
  const auto outs = g.add_op(ir::OpType::Sgd, "sgd", OpCategory::WeightUpdate, {t.w, t.gw, t.v},
                             {{"lr", 0.1}, {"momentum", 0.9}});
  g.mark_output(outs[0]);
  return t;
}

const memory::Buffer& buffer_of(const Lifetimes& lt, const ir::Graph& g, ir::TensorId t) {
  const int32_t b = lt.buffer_of_data.at(g.tensor(t).data.index());
  EXPECT_GE(b, 0) << g.tensor(t).name;
  return lt.buffers.at(static_cast<size_t>(b));
}

TEST(Lifetimes, HandBuiltStepExactly) {
  const Hand t = hand_graph();
  const ir::Graph& g = t.g;
  const std::vector<OpId> order = g.topo_order();
  std::vector<std::string> names;
  for (OpId op : order)
    names.push_back(g.op(op).name);
  ASSERT_EQ(names, (std::vector<std::string>{"fc", "h_t", "relu", "loss", "gw", "sgd"}));

  const Lifetimes lt = compute_lifetimes(g, order);
  // One buffer per used data node: x, w, v, labels, h, r, loss, gw; never `unused`, and the
  // views (h_t, sgd's outputs) add none.
  EXPECT_EQ(lt.buffers.size(), 8u);
  EXPECT_EQ(lt.data.size(), 8u);
  EXPECT_EQ(lt.buffer_of_data.at(g.tensor(t.unused).data.index()), -1);
  for (size_t i = 0; i < lt.data.size(); ++i)
    EXPECT_EQ(lt.buffer_of_data.at(lt.data[i].index()), static_cast<int32_t>(i));

  struct Expect {
    ir::TensorId tensor;
    uint64_t size;
    uint32_t first, last;
    bool persistent;
  };
  const std::vector<Expect> expected = {
      {t.x, 24, 0, 5, true},   {t.w, 48, 0, 5, true},  // updated in place by sgd, still persistent
      {t.v, 48, 0, 5, true},   {t.labels, 8, 0, 5, true},
      {t.h, 32, 0, 4, false},                             // its view h_t is read by gw at step 4
      {t.r, 32, 2, 3, false},  {t.loss, 4, 3, 5, false},  // the loss lives to the end
      {t.gw, 48, 4, 5, false},                            // a weight gradient dies at its update
  };
  for (const Expect& e : expected) {
    const memory::Buffer& b = buffer_of(lt, g, e.tensor);
    SCOPED_TRACE(b.name);
    EXPECT_EQ(b.size, e.size);
    EXPECT_EQ(b.first, e.first);
    EXPECT_EQ(b.last, e.last);
    EXPECT_EQ(b.persistent, e.persistent);
  }
  EXPECT_EQ(buffer_of(lt, g, t.ht).name, "fc");  // the view's data is h's
  EXPECT_EQ(buffer_of(lt, g, t.gw).role, ir::TensorRole::WeightGradient);
  // Step 4 holds h, loss and gw: 32 + 4 + 48 bytes, each rounded up to 64.
  EXPECT_EQ(memory::live_peak(lt.buffers, 64), 192u);
  EXPECT_EQ(memory::live_peak(lt.buffers, 1), 84u);
}

TEST(Lifetimes, RejectsAnOrderThatIsNotAPermutation) {
  const Hand t = hand_graph();
  std::vector<OpId> order = t.g.topo_order();
  order.back() = order.front();
  try {
    compute_lifetimes(t.g, order);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("op 'fc' appears twice"), std::string::npos) << e.what();
  }
}

TEST(Schedule, CheckOrderNamesTheOpThatRunsTooEarly) {
  const Hand t = hand_graph();
  std::vector<OpId> order = t.g.topo_order();
  std::swap(order[2], order[3]);  // loss before relu
  try {
    check_order(t.g, order, "test");
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("op 'loss' (step 2) runs before its predecessor 'relu' "
                                         "(step 3)"),
              std::string::npos)
        << e.what();
  }
  std::swap(order[2], order[3]);
  EXPECT_NO_THROW(check_order(t.g, order, "test"));
}

std::vector<std::string> op_names(const ir::Graph& g, const std::vector<OpId>& order) {
  std::vector<std::string> names;
  for (OpId op : order)
    names.push_back(g.op(op).name);
  return names;
}

// After `gw` completes w's gradient, `dx` (another reader of w) must still run before the
// sgd; `u`, an unrelated backward op, comes earlier in construction order.
TEST(Schedule, UpdateImmediateRunsTheAntiDependenciesFirst) {
  ir::Graph g("anti");
  using ir::TensorRole;
  const auto x = g.add_parameter("x", TensorRole::Input, ir::DType::F32, {2, 3});
  const auto w = g.add_parameter("w", TensorRole::Weight, ir::DType::F32, {4, 3});
  const auto labels = g.add_parameter("labels", TensorRole::Label, ir::DType::I32, {2});
  const auto fc =
      g.add(ir::OpType::Gemm, "fc", OpCategory::Forward, {x, w}, {{"trans_b", int64_t{1}}});
  g.set_loss(g.add(ir::OpType::SoftmaxCe, "loss", OpCategory::Forward, {fc, labels}));
  g.mark_output(g.loss());
  const auto dfc = g.add(ir::OpType::SoftmaxCeBwd, "dfc", OpCategory::ActivationGrad, {fc, labels});
  const auto gw =
      g.add(ir::OpType::Gemm, "gw", OpCategory::WeightGrad, {dfc, x}, {{"trans_a", int64_t{1}}});
  g.mark_output(g.add(ir::OpType::ReluBwd, "u", OpCategory::ActivationGrad, {dfc, fc}));
  g.mark_output(g.add(ir::OpType::Gemm, "dx", OpCategory::ActivationGrad, {dfc, w}));
  g.mark_output(
      g.add_op(ir::OpType::Sgd, "sgd", OpCategory::WeightUpdate, {w, gw}, {{"lr", 0.1}})[0]);

  EXPECT_EQ(op_names(g, schedule_ops(g, "update-last")),
            (std::vector<std::string>{"fc", "loss", "dfc", "gw", "u", "dx", "sgd"}));
  EXPECT_EQ(op_names(g, schedule_ops(g, "update-immediate")),
            (std::vector<std::string>{"fc", "loss", "dfc", "gw", "dx", "sgd", "u"}));
}

// big (8 KiB) feeds half (4 KiB, output) and z (4 B), and z feeds y (4 B, output). Once z has
// run, half frees big (net -4 KiB) and wins over y, which allocates less but frees only z.
TEST(Schedule, MemoryAwarePrefersFreeingThenSmallAllocations) {
  ir::Graph g("greedy");
  const auto xb = g.add_parameter("xb", ir::TensorRole::Input, ir::DType::F32, {2, 1024});
  const auto big = g.add(ir::OpType::Relu, "big", OpCategory::Forward, {xb});
  g.mark_output(g.add(ir::OpType::ReduceSum, "half", OpCategory::Forward, {big},
                      {{"axes", std::vector<int64_t>{0}}}));
  const auto z = g.add(ir::OpType::ReduceSum, "z", OpCategory::Forward, {big},
                       {{"axes", std::vector<int64_t>{0, 1}}});
  g.mark_output(g.add(ir::OpType::Relu, "y", OpCategory::Forward, {z}));

  EXPECT_EQ(op_names(g, g.topo_order()), (std::vector<std::string>{"big", "half", "z", "y"}));
  const std::vector<OpId> order = schedule_ops(g, "memory-aware");
  EXPECT_EQ(op_names(g, order), (std::vector<std::string>{"big", "z", "half", "y"}));
  EXPECT_EQ(memory::live_peak(compute_lifetimes(g, order).buffers, 4), 8192u + 4u + 4096u);
}

TEST(Schedule, UnknownSchedulerListsTheKnownOnes) {
  const Hand t = hand_graph();
  try {
    schedule_ops(t.g, "fastest");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown scheduler 'fastest'; known: update-last, update-immediate, memory-aware");
  }
  EXPECT_EQ(scheduler_registry().names(),
            (std::vector<std::string>{"update-last", "update-immediate", "memory-aware"}));
}

}  // namespace
}  // namespace s2::schedule
