#include "compiler/schedule/fit_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "compiler/memory/buffer.h"
#include "compiler/ops/registry.h"
#include "compiler/schedule/budget_ilp.h"
#include "compiler/schedule/budget_rewrite.h"
#include "compiler/schedule/lifetimes.h"
#include "isa/common/errors.h"

namespace s2::schedule {

using budget::apply_recompute;
using budget::apply_swap;
using budget::Candidate;
using budget::candidates;
using budget::kNever;
using budget::Occupancy;
using budget::occupancy;
using budget::recomputable;
using budget::steps_in;

namespace {

double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// Predicted cycles of each op, asked of the cost table once per op (0 for views, which are no
// instruction).
class CostCache {
 public:
  explicit CostCache(const OpCost& cost) : cost_(cost) {}

  std::vector<uint64_t> of_steps(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
    if (known_.size() < graph.num_ops()) {
      known_.resize(graph.num_ops(), kNever);
      cycles_.resize(graph.num_ops(), 0);
    }
    std::vector<uint64_t> c(order.size(), 0);
    for (size_t s = 0; s < order.size(); ++s) {
      const size_t i = order[s].index();
      if (known_[i] == kNever) {
        const ir::Op& op = graph.op(order[s]);
        cycles_[i] = ir::op_schema(op.type).fusion == ir::FusionClass::View ? 0 : cost_(graph, op);
        known_[i] = 1;
      }
      c[s] = cycles_[i];
    }
    return c;
  }

 private:
  const OpCost& cost_;
  std::vector<uint32_t> known_;
  std::vector<uint64_t> cycles_;
};

uint64_t sum(const std::vector<uint64_t>& c, size_t from, size_t to) {  // [from, to)
  uint64_t total = 0;
  for (size_t s = from; s < to && s < c.size(); ++s)
    total += c[s];
  return total;
}

// Cycles a swap copy's DRAM side takes from the compute's DRAM bandwidth: its bytes at the
// DRAM's peak (0 when unknown).
uint64_t dram_share(uint64_t bytes, double dram_bytes_per_cycle) {
  return dram_bytes_per_cycle > 0
             ? static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / dram_bytes_per_cycle))
             : 0;
}

// The step's predicted cycles: compute ops one after another on the PE array and the PPU, the
// copies on the DMA unit beside them, each copy to or from host memory also taking its DRAM
// side's time from the compute (the DRAM they share); an op waits for the ops that produce its
// inputs (through their data). Views cost nothing.
uint64_t predicted_cycles(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                          const std::vector<uint64_t>& costs, double dram_bytes_per_cycle) {
  std::vector<uint64_t> ready(graph.num_datas(), 0);  // when each data's latest write ends
  uint64_t compute_free = 0, dma_free = 0, end = 0;
  for (size_t s = 0; s < order.size(); ++s) {
    const ir::Op& op = graph.op(order[s]);
    uint64_t start = 0;
    for (ir::TensorId in : op.inputs)
      if (in.valid()) start = std::max(start, ready[graph.tensor(in).data.index()]);
    const bool dma = op.type == ir::OpType::Copy;
    uint64_t& unit = dma ? dma_free : compute_free;
    start = std::max(start, unit);
    const uint64_t done = start + costs[s];
    if (ir::op_schema(op.type).fusion != ir::FusionClass::View) unit = done;
    if (dma && op.outputs[0].valid()) {
      const ir::Tensor& y = graph.tensor(op.outputs[0]);
      const bool host = graph.data(y.data).space == isa::MemSpace::Host ||
                        graph.data(graph.tensor(op.inputs[0]).data).space == isa::MemSpace::Host;
      if (host) compute_free += dram_share(data_bytes(graph.data(y.data)), dram_bytes_per_cycle);
    }
    for (ir::TensorId out : op.outputs)
      if (out.valid()) ready[graph.tensor(out).data.index()] = done;
    end = std::max(end, done);
  }
  return end;
}

// The step before `c.first_bwd` at which its swap-in starts: the latest whose compute up to the
// first use covers the transfer, but after the peak being relieved and after every step whose
// arena bytes exceed `arena_target` (the fresh copy, live from there to the first use, must
// not raise a step above the target).
uint32_t swap_in_step(const Candidate& c, const std::vector<uint64_t>& costs, const Occupancy& o,
                      uint64_t arena_target, uint64_t transfer) {
  uint32_t floor = o.peak_step + 1;
  for (uint32_t s = floor; s < c.first_bwd; ++s)
    if (o.live[s] > arena_target) floor = s + 1;
  uint32_t p = c.first_bwd;
  uint64_t covered = 0;
  while (p > floor && covered < transfer) {
    --p;
    covered += costs[p];
  }
  return std::max(p, floor);
}

}  // namespace

uint64_t needed_dram(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                     uint64_t alignment) {
  return occupancy(graph, order, alignment).needed();
}

namespace {

// Defined with the fitting helpers below.
uint64_t reached_dram(const ir::Graph& g, const std::vector<ir::OpId>& ord,
                      const BudgetOptions& options);

// Fills in `r` (unchanged()'s) for a step that fits as scheduled, its plan reaching `planned`.
void describe_unchanged(BudgetResult& r, uint64_t planned, const BudgetOptions& options) {
  r.needed_after = r.needed_before;
  r.predicted_cycles = r.unconstrained_cycles;
  r.summary = fmt::format(
      "fits: {:.1f} MiB needed{} of {:.1f} MiB, nothing swapped or recomputed",
      mib(r.needed_before),
      planned > r.needed_before ? fmt::format(" ({:.1f} MiB as planned)", mib(planned)) : "",
      mib(options.budget));
}

// Fills in `r` once its choices are applied to `graph` and `order` (r.swapped and r.recomputed
// named, `copies` and `clones` their ops, r.needed_before, r.unconstrained_cycles and
// r.kept_bytes, the candidates' bytes, set): the final steps, the need, the predicted cycles and
// the summary.
void describe(BudgetResult& r, const ir::Graph& graph, const std::vector<ir::OpId>& order,
              const std::vector<std::pair<ir::OpId, ir::OpId>>& copies,
              const std::vector<std::pair<ir::OpId, ir::OpId>>& clones,
              const BudgetOptions& options, CostCache& costs_of) {
  const Occupancy o = occupancy(graph, order, options.alignment);
  if (copies.empty() && clones.empty()) {
    describe_unchanged(r, reached_dram(graph, order, options), options);
    return;
  }
  // Steps move as later choices insert ops: give the final ones.
  const std::vector<uint32_t> step = steps_in(graph, order);
  for (size_t k = 0; k < r.swapped.size(); ++k) {
    r.swapped[k].out_step = step[copies[k].first.index()];
    r.swapped[k].in_step = step[copies[k].second.index()];
  }
  for (size_t k = 0; k < r.recomputed.size(); ++k) {
    r.recomputed[k].out_step = step[clones[k].first.index()];
    r.recomputed[k].in_step = step[clones[k].second.index()];
  }
  r.changed = true;
  for (const auto* ts : {&r.swapped, &r.recomputed})
    for (const SwappedTensor& t : *ts)
      r.kept_bytes -= t.bytes;
  r.needed_after = o.needed();
  r.predicted_cycles =
      predicted_cycles(graph, order, costs_of.of_steps(graph, order), options.dram_bytes_per_cycle);
  auto listed = [](const std::vector<SwappedTensor>& ts, uint64_t* bytes) {
    std::string names;
    for (size_t k = 0; k < ts.size(); ++k) {
      *bytes += ts[k].bytes;
      if (k < 8)
        names += fmt::format("{}{} {:.1f} MiB (steps {}..{})", k ? ", " : "", ts[k].name,
                             mib(ts[k].bytes), ts[k].out_step, ts[k].in_step);
    }
    if (ts.size() > 8) names += fmt::format(", and {} more", ts.size() - 8);
    return names;
  };
  uint64_t swapped = 0, recomputed = 0;
  const std::string swapped_names = listed(r.swapped, &swapped);
  const std::string recomputed_names = listed(r.recomputed, &recomputed);
  r.summary = fmt::format(
      "budget {:.1f} MiB: {:.1f} MiB needed -> {:.1f} MiB; swapped {} activations ({:.1f} MiB) "
      "to host memory, recomputed {} ({:.1f} MiB), kept {:.1f} MiB of candidates in DRAM; "
      "predicted {} cycles against {} unconstrained ({:+.1f}%)",
      mib(options.budget), mib(r.needed_before), mib(r.needed_after), r.swapped.size(),
      mib(swapped), r.recomputed.size(), mib(recomputed), mib(r.kept_bytes), r.predicted_cycles,
      r.unconstrained_cycles,
      r.unconstrained_cycles == 0 ? 0.0
                                  : 100.0 * (static_cast<double>(r.predicted_cycles) /
                                                 static_cast<double>(r.unconstrained_cycles) -
                                             1.0));
  if (!swapped_names.empty()) r.summary += "; swapped: " + swapped_names;
  if (!recomputed_names.empty()) r.summary += "; recomputed: " + recomputed_names;
}

// The result before any choice: what describe() starts from.
BudgetResult unchanged(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                       const BudgetOptions& options, CostCache& costs_of) {
  BudgetResult r;
  r.needed_before = needed_dram(graph, order, options.alignment);
  r.unconstrained_cycles =
      predicted_cycles(graph, order, costs_of.of_steps(graph, order), options.dram_bytes_per_cycle);
  for (const Candidate& c : candidates(graph, order))
    r.kept_bytes += c.bytes;
  return r;
}

// One greedy run with the ways `options` allows; nullopt when it gets stuck above the budget
// (no candidate is live across the peak). Without `prefetch` every swap-in comes just in time,
// which hides less of the link but never raises a later step (near the smallest budget the
// prefetched copies can leave a peak no candidate spans).
std::optional<BudgetResult> greedy_fit(ir::Graph& graph, std::vector<ir::OpId>& order,
                                       const BudgetOptions& options, bool prefetch) {
  CostCache costs_of(options.cost);
  BudgetResult r = unchanged(graph, order, options, costs_of);
  Occupancy o = occupancy(graph, order, options.alignment);
  std::vector<std::pair<ir::OpId, ir::OpId>> copies;  // per swapped tensor
  std::vector<std::pair<ir::OpId, ir::OpId>> clones;  // per recomputed: (producer, clone)
  // The lifetimes' need is what the planner must reach; its plan may take a little more (an
  // arena above the lower bound): then aim that much lower and go on.
  uint64_t target = options.budget;
  for (;;) {
    if (o.needed() <= target) {
      const uint64_t planned = options.planned_dram ? options.planned_dram(graph, order) : 0;
      if (planned <= options.budget) break;
      const uint64_t over = planned - options.budget;
      target = target > over ? target - over : 0;
      continue;
    }
    std::vector<Candidate> cs = candidates(graph, order);
    const std::vector<uint64_t> costs = costs_of.of_steps(graph, order);
    const Lifetimes lifetimes = compute_lifetimes(graph, order);
    const std::vector<uint32_t> step = steps_in(graph, order);
    std::optional<Candidate> best;
    bool best_recompute = false;
    double best_score = 0;
    uint64_t best_transfer = 0;
    auto consider = [&](const Candidate& c, uint64_t exposed, bool recompute, uint64_t transfer) {
      // Least exposed time per byte; among the fully hidden, the largest.
      const double score = exposed == 0
                               ? -static_cast<double>(c.bytes)
                               : static_cast<double>(exposed) / static_cast<double>(c.bytes);
      if (!best || score < best_score) {
        best = c;
        best_score = score;
        best_recompute = recompute;
        best_transfer = transfer;
      }
    };
    for (const Candidate& c : cs) {
      if (!(c.last_fwd < o.peak_step && o.peak_step < c.first_bwd)) continue;
      if (options.swap) {
        const uint64_t transfer = options.swap_cost(c.bytes);
        const uint64_t hide_out = sum(costs, c.last_fwd + 1, o.peak_step + 1);
        const uint64_t hide_in = sum(costs, o.peak_step + 1, c.first_bwd);
        // The link's time the compute does not cover, and both copies' DRAM sides, which the
        // compute's own DRAM traffic waits for.
        consider(c,
                 (transfer > hide_out ? transfer - hide_out : 0) +
                     (transfer > hide_in ? transfer - hide_in : 0) +
                     2 * dram_share(c.bytes, options.dram_bytes_per_cycle),
                 false, transfer);
      }
      // A recomputation runs on the units the step computes on: all of it is exposed.
      if (options.recompute && recomputable(graph, order, lifetimes, step, c))
        consider(c, costs[step[graph.tensor(c.main).producer.index()]], true, 0);
    }
    if (!best) return std::nullopt;
    const ir::OpId producer = graph.tensor(best->main).producer;
    if (best_recompute) {
      const uint64_t cycles = costs[step[producer.index()]];
      clones.emplace_back(producer, apply_recompute(graph, order, *best));
      r.recomputed.push_back({graph.data(best->data).name, best->bytes, 0, 0, cycles});
    } else {
      const uint64_t arena_target = target > o.persistent ? target - o.persistent : 0;
      const uint32_t in_before =
          prefetch ? swap_in_step(*best, costs, o, arena_target, best_transfer) : best->first_bwd;
      copies.push_back(apply_swap(graph, order, *best, in_before));
      r.swapped.push_back({graph.data(best->data).name, best->bytes, 0, 0, 0});
    }
    o = occupancy(graph, order, options.alignment);
  }
  describe(r, graph, order, copies, clones, options, costs_of);
  return r;
}

// The exhaustive search on small graphs, to measure the greedy against: every assignment of
// keep, swap or recompute to the scheduled step's candidates, each applied just in time; the
// fewest predicted cycles of those that fit (nullopt: none fits, or too many candidates).
// `tried` counts the assignments.
constexpr size_t kExactCandidates = 7;  // 3^7 = 2187 assignments at most

std::optional<uint64_t> exhaustive_cycles(const ir::Graph& graph,
                                          const std::vector<ir::OpId>& order,
                                          const BudgetOptions& options, size_t* tried) {
  const std::vector<Candidate> initial = candidates(graph, order);
  *tried = 0;
  if (initial.size() > kExactCandidates) return std::nullopt;
  size_t total = 1;
  for (size_t k = 0; k < initial.size(); ++k)
    total *= 3;
  CostCache costs_of(options.cost);
  std::optional<uint64_t> best;
  for (size_t code = 0; code < total; ++code) {
    ir::Graph g = graph;
    std::vector<ir::OpId> ord = order;
    bool valid = true;
    size_t rest = code;
    for (size_t k = 0; k < initial.size() && valid; ++k, rest /= 3) {
      const size_t way = rest % 3;  // 0 keep, 1 swap, 2 recompute
      if (way == 0) continue;
      if ((way == 1 && !options.swap) || (way == 2 && !options.recompute)) {
        valid = false;
        break;
      }
      // The candidate as it stands now (earlier choices moved its steps).
      std::optional<Candidate> c;
      for (const Candidate& now : candidates(g, ord))
        if (now.data == initial[k].data) c = now;
      if (!c) {
        valid = false;  // an earlier choice made it no candidate (its reader was recomputed)
        break;
      }
      if (way == 1) {
        apply_swap(g, ord, *c, c->first_bwd);
        continue;
      }
      const Lifetimes l = compute_lifetimes(g, ord);
      const std::vector<uint32_t> step = steps_in(g, ord);
      if (!recomputable(g, ord, l, step, *c)) {
        valid = false;
        break;
      }
      apply_recompute(g, ord, *c);
    }
    if (!valid) continue;
    ++*tried;
    if (needed_dram(g, ord, options.alignment) > options.budget) continue;
    if (options.planned_dram && options.planned_dram(g, ord) > options.budget) continue;
    const uint64_t cycles =
        predicted_cycles(g, ord, costs_of.of_steps(g, ord), options.dram_bytes_per_cycle);
    if (!best || cycles < *best) best = cycles;
  }
  return best;
}

// A fitted step: the result and the graph and order it describes.
struct Fitted {
  BudgetResult result;
  ir::Graph graph;
  std::vector<ir::OpId> order;
};

// The DRAM a step reaches: the planner's plan of it (at least its lifetimes' need), or without
// a planner the lifetimes' need.
uint64_t reached_dram(const ir::Graph& g, const std::vector<ir::OpId>& ord,
                      const BudgetOptions& options) {
  const uint64_t need = needed_dram(g, ord, options.alignment);
  return options.planned_dram ? std::max(need, options.planned_dram(g, ord)) : need;
}

// Whether the step fits the budget; `over` gets the bytes it exceeds it by.
bool fits(const ir::Graph& g, const std::vector<ir::OpId>& ord, const BudgetOptions& options,
          uint64_t* over = nullptr) {
  const uint64_t reached = reached_dram(g, ord, options);
  if (over) *over = reached > options.budget ? reached - options.budget : 0;
  return reached <= options.budget;
}

// The exact formulation (budget_ilp.h) on the scheduled step. Each candidate's ways: swapped
// with its swap-in just in time, or prefetched where the compute before the first backward use
// covers half or all of the transfer, and recomputed where it can be; each way's cycles counted
// from the cost table as the greedy counts them, the bytes it frees over the steps between. A
// recomputation reading another candidate couples them (budget_ilp.h). The solution is applied
// (recomputations first, of the latest forward producers first, so that a recomputation
// reading another candidate still finds it; then the swaps) and predicted as the greedy's
// results are. When the planner's plan of it exceeds the budget, the program is solved again
// without that assignment, and from the second time on also for as much less capacity as the
// plan exceeded the budget by (12 solves at most, 10 s each, 30 s per compile over every solve
// of the pass). The program knows the lifetimes' need, not
// the planner's fragmentation: a plan that fits only by its layout can escape it (the choice
// is then the greedy's).
constexpr size_t kIlpCandidates = 64;    // larger steps take the greedy alone
constexpr double kIlpSeconds = 10;       // per solve
constexpr double kIlpTotalSeconds = 30;  // per compile, over every solve
using Deadline = std::chrono::steady_clock::time_point;

struct IlpOutcome {
  std::optional<Fitted> fitted;
  IlpSolution solution;  // the last solved
  size_t candidates = 0;
  int solves = 0;
  double seconds = 0;   // of every solve
  std::string failure;  // why a solution found was not applied
};

IlpOutcome ilp_fit(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                   const BudgetOptions& options, Deadline deadline) {
  IlpOutcome out;
  const std::vector<Candidate> cs = candidates(graph, order);
  out.candidates = cs.size();
  const Occupancy o = occupancy(graph, order, options.alignment);
  CostCache costs_of(options.cost);
  const std::vector<uint64_t> costs = costs_of.of_steps(graph, order);
  const Lifetimes lifetimes = compute_lifetimes(graph, order);
  const std::vector<uint32_t> step = steps_in(graph, order);
  auto exposed = [](uint64_t transfer, uint64_t hidden) {
    return transfer > hidden ? transfer - hidden : 0;
  };
  IlpProblem problem;
  problem.live = o.live;
  std::vector<std::vector<uint32_t>> swap_in_at(cs.size());  // per swap way: its swap-in step
  std::vector<int> recompute_way(cs.size(), -1);
  for (size_t i = 0; i < cs.size(); ++i) {
    const Candidate& c = cs[i];
    IlpCandidate ic;
    ic.bytes = memory::align_up(c.bytes, options.alignment);
    if (options.swap) {
      const uint64_t transfer = options.swap_cost(c.bytes);
      const uint64_t share = 2 * dram_share(c.bytes, options.dram_bytes_per_cycle);
      std::vector<uint32_t> positions{c.first_bwd};
      for (const uint64_t part : {transfer / 2, transfer}) {
        uint32_t at = c.first_bwd;
        uint64_t covered = 0;
        while (at > c.last_fwd + 2 && covered < part)
          covered += costs[--at];
        if (at < positions.back()) positions.push_back(at);
      }
      for (const uint32_t at : positions) {
        // Freed between the swap-out after step last_fwd and the swap-in before step `at`.
        ic.ways.push_back({c.last_fwd + 1, at - 1, 0, 0,
                           exposed(transfer, sum(costs, c.last_fwd + 1, at)) +
                               exposed(transfer, sum(costs, at, c.first_bwd)) + share});
        swap_in_at[i].push_back(at);
      }
    }
    if (options.recompute && recomputable(graph, order, lifetimes, step, c)) {
      const ir::Op& producer = graph.op(graph.tensor(c.main).producer);
      uint64_t others = 0;  // its other outputs, written again beside c
      for (ir::TensorId y : producer.outputs)
        if (y.valid() && y != c.main)
          others +=
              memory::align_up(data_bytes(graph.data(graph.tensor(y).data)), options.alignment);
      recompute_way[i] = static_cast<int>(ic.ways.size());
      ic.ways.push_back({c.last_fwd + 1, c.first_bwd - 1, others, c.first_bwd,
                         costs[step[graph.tensor(c.main).producer.index()]]});
    }
    problem.candidates.push_back(std::move(ic));
  }
  for (size_t a = 0; a < cs.size(); ++a) {
    if (recompute_way[a] < 0) continue;
    for (ir::TensorId in : graph.op(graph.tensor(cs[a].main).producer).inputs)
      for (size_t j = 0; j < cs.size(); ++j)
        if (in.valid() && graph.tensor(in).data == cs[j].data && cs[a].first_bwd < cs[j].first_bwd)
          problem.couplings.push_back(
              {a, static_cast<size_t>(recompute_way[a]), j, cs[a].first_bwd, cs[j].first_bwd - 1});
  }

  uint64_t target = options.budget;
  for (int attempt = 0; attempt < 12 && target > o.persistent; ++attempt) {
    const double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left < 0.01) {
      out.failure = fmt::format("its {:.0f} s per compile ran out", kIlpTotalSeconds);
      return out;
    }
    problem.time_limit_s = std::min(kIlpSeconds, left);
    problem.capacity = target - o.persistent;
    out.solution = solve_budget_ilp(problem);
    ++out.solves;
    out.seconds += out.solution.seconds;
    if (out.solution.status != IlpSolution::Status::Optimal &&
        out.solution.status != IlpSolution::Status::Feasible)
      return out;
    Fitted f{unchanged(graph, order, options, costs_of), graph, order};
    std::vector<std::pair<ir::OpId, ir::OpId>> copies, clones;
    // The current form of candidate i (earlier choices moved its steps); nullopt when an
    // earlier choice made it no candidate.
    auto now = [&](size_t i) -> std::optional<Candidate> {
      for (const Candidate& c : candidates(f.graph, f.order))
        if (c.data == cs[i].data) return c;
      return std::nullopt;
    };
    std::vector<size_t> recomputed, swapped;
    for (size_t i = 0; i < cs.size(); ++i) {
      const int way = out.solution.way[i];
      if (way >= 0) (way == recompute_way[i] ? recomputed : swapped).push_back(i);
    }
    std::sort(recomputed.begin(), recomputed.end(), [&](size_t a, size_t b) {
      return step[graph.tensor(cs[a].main).producer.index()] >
             step[graph.tensor(cs[b].main).producer.index()];
    });
    for (const size_t i : recomputed) {
      const std::optional<Candidate> c = now(i);
      const Lifetimes l = compute_lifetimes(f.graph, f.order);
      if (!c || !recomputable(f.graph, f.order, l, steps_in(f.graph, f.order), *c)) {
        out.failure = fmt::format("{} cannot be recomputed as chosen", graph.data(cs[i].data).name);
        return out;
      }
      const ir::OpId producer = f.graph.tensor(c->main).producer;
      clones.emplace_back(producer, apply_recompute(f.graph, f.order, *c));
      f.result.recomputed.push_back({graph.data(cs[i].data).name, cs[i].bytes, 0, 0,
                                     problem.candidates[i].ways.back().cycles});
    }
    for (const size_t i : swapped) {
      const std::optional<Candidate> c = now(i);
      if (!c) {
        out.failure = fmt::format("{} cannot be swapped as chosen", graph.data(cs[i].data).name);
        return out;
      }
      // Before the op that was at the chosen step, but not after the first use now.
      const ir::OpId before = order[swap_in_at[i][static_cast<size_t>(out.solution.way[i])]];
      const uint32_t in_before = std::max(
          c->last_fwd + 1, std::min(steps_in(f.graph, f.order)[before.index()], c->first_bwd));
      copies.push_back(apply_swap(f.graph, f.order, *c, in_before));
      f.result.swapped.push_back({graph.data(cs[i].data).name, cs[i].bytes, 0, 0, 0});
    }
    uint64_t over = 0;
    if (fits(f.graph, f.order, options, &over)) {
      describe(f.result, f.graph, f.order, copies, clones, options, costs_of);
      out.fitted = std::move(f);
      return out;
    }
    // This assignment does not fit: never again. From the second failure on, also aim below
    // what its lifetimes reached by what its plan exceeded the budget (the planner's
    // fragmentation).
    problem.excluded.push_back(out.solution.way);
    if (attempt >= 1) {
      target = std::min(target, needed_dram(f.graph, f.order, options.alignment));
      target = target > over ? target - over : 0;
    }
  }
  out.failure = "its solutions do not fit the planner's plan";
  return out;
}

// Every candidate treated, each just in time, preferring recomputation or swapping where both
// are allowed and possible, the latest producers first (so recomputations chain): the smallest
// DRAM the ways reach from the scheduled step.
Fitted treat_all(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                 const BudgetOptions& options, bool prefer_recompute) {
  CostCache costs_of(options.cost);
  Fitted f{unchanged(graph, order, options, costs_of), graph, order};
  std::vector<std::pair<ir::OpId, ir::OpId>> copies, clones;
  for (bool progress = true; progress;) {
    progress = false;
    const Lifetimes l = compute_lifetimes(f.graph, f.order);
    const std::vector<uint32_t> step = steps_in(f.graph, f.order);
    // The latest producers first: a recomputation reading another candidate finds it still
    // live, and that one, read now by the recomputation, can be recomputed in turn (a chain).
    std::vector<Candidate> cs = candidates(f.graph, f.order);
    std::stable_sort(cs.begin(), cs.end(), [&](const Candidate& a, const Candidate& b) {
      return step[f.graph.tensor(a.main).producer.index()] >
             step[f.graph.tensor(b.main).producer.index()];
    });
    for (const Candidate& c : cs) {
      const bool can_recompute = options.recompute && recomputable(f.graph, f.order, l, step, c);
      const std::string name = f.graph.data(c.data).name;
      if (can_recompute && (prefer_recompute || !options.swap)) {
        const ir::OpId producer = f.graph.tensor(c.main).producer;
        const uint64_t cycles = costs_of.of_steps(f.graph, f.order)[step[producer.index()]];
        clones.emplace_back(producer, apply_recompute(f.graph, f.order, c));
        f.result.recomputed.push_back({name, c.bytes, 0, 0, cycles});
      } else if (options.swap) {
        copies.push_back(apply_swap(f.graph, f.order, c, c.first_bwd));
        f.result.swapped.push_back({name, c.bytes, 0, 0, 0});
      } else {
        continue;
      }
      progress = true;
      break;  // the order changed: look again
    }
  }
  describe(f.result, f.graph, f.order, copies, clones, options, costs_of);
  return f;
}

double percent_from(uint64_t cycles, uint64_t reference) {
  return 100.0 * (static_cast<double>(cycles) / static_cast<double>(reference) - 1.0);
}

}  // namespace

BudgetResult fit_memory_budget(ir::Graph& graph, std::vector<ir::OpId>& order,
                               const BudgetOptions& options) {
  S2_CHECK(static_cast<bool>(options.cost), "fit_memory_budget: no cost table");
  const Deadline deadline = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(kIlpTotalSeconds));
  if (options.budget == 0) {
    BudgetResult r;
    r.needed_before = r.needed_after = needed_dram(graph, order, options.alignment);
    r.summary = "no budget (--memory-budget)";
    return r;
  }
  // A step that fits as scheduled is planned once here, and its cycles are not predicted
  // (nothing is chosen between): each greedy variant below would plan it twice more and price
  // every step to find that out, 12 s of gpt2-small's compile at batch 8 with fused attention.
  if (const uint64_t planned = reached_dram(graph, order, options); planned <= options.budget) {
    BudgetResult r;
    r.needed_before = needed_dram(graph, order, options.alignment);
    for (const Candidate& c : candidates(graph, order))
      r.kept_bytes += c.bytes;
    describe_unchanged(r, planned, options);
    return r;
  }
  // The greedy with every way allowed and with each alone (one way's early choices can pin what
  // the other needs later), with swap-ins prefetched and just in time; on steps of few
  // candidates the exact formulation beside it: the fitting result of the fewest predicted
  // cycles.
  struct Variant {
    bool swap, recompute, prefetch;
  };
  std::vector<Variant> variants;
  for (const bool prefetch : {true, false}) {
    if (!prefetch && !options.swap) break;  // only swaps are prefetched
    variants.push_back({options.swap, options.recompute, prefetch});
    if (options.swap && options.recompute)
      variants.insert(variants.end(), {{true, false, prefetch}, {false, true, prefetch}});
  }
  std::optional<Fitted> chosen;
  for (const Variant& v : variants) {
    if (!v.prefetch && !v.swap) continue;  // the same as with prefetch
    Fitted f{{}, graph, order};
    BudgetOptions one = options;
    one.swap = v.swap;
    one.recompute = v.recompute;
    std::optional<BudgetResult> r = greedy_fit(f.graph, f.order, one, v.prefetch);
    if (r && (!chosen || r->predicted_cycles < chosen->result.predicted_cycles)) {
      f.result = std::move(*r);
      chosen = std::move(f);
    }
  }
  const bool greedy_fits = chosen.has_value();
  const uint64_t greedy_cycles = greedy_fits ? chosen->result.predicted_cycles : 0;
  if (greedy_fits && !chosen->result.changed) return chosen->result;  // fits as scheduled

  std::string exact;
  if (candidates(graph, order).size() <= kIlpCandidates) {
    IlpOutcome ilp = ilp_fit(graph, order, options, deadline);
    const IlpSolution& s = ilp.solution;
    exact = fmt::format(
        "; exact formulation (GLPK: {} candidates, {} rows, {} columns, {} solve{} in {:.2f} s): "
        "{}",
        ilp.candidates, s.rows, s.columns, ilp.solves, ilp.solves == 1 ? "" : "s", ilp.seconds,
        status_name(s.status));
    if (ilp.fitted) {
      const uint64_t cycles = ilp.fitted->result.predicted_cycles;
      exact += fmt::format(", {} predicted cycles", cycles);
      if (greedy_fits)
        exact += fmt::format(", the greedy's {} {:+.2f}% from it", greedy_cycles,
                             percent_from(greedy_cycles, cycles));
      if (!chosen || cycles < chosen->result.predicted_cycles) {
        chosen = std::move(ilp.fitted);
        exact += "; the exact solution taken";
      }
      chosen->result.ilp_cycles = cycles;
    } else if (!ilp.failure.empty()) {
      exact += ", not applied: " + ilp.failure;
    }
  }
  if (!chosen) {  // near the smallest budget the greedy can miss what treating everything reaches
    for (const bool prefer_recompute : {true, false}) {
      if (prefer_recompute && !options.recompute) continue;
      Fitted f = treat_all(graph, order, options, prefer_recompute);
      if (f.result.changed && fits(f.graph, f.order, options) &&
          (!chosen || f.result.predicted_cycles < chosen->result.predicted_cycles))
        chosen = std::move(f);
    }
    if (chosen)
      chosen->result.summary +=
          "; every candidate treated just in time (the greedy "
          "found no way to fit)";
  }
  if (chosen) {
    BudgetResult& r = chosen->result;
    r.greedy_cycles = greedy_cycles;
    r.summary += exact;
    size_t tried = 0;
    if (const auto exhaustive = exhaustive_cycles(graph, order, options, &tried)) {
      r.exhaustive_cycles = *exhaustive;
      r.summary += fmt::format(
          "; exhaustive search of the {} assignments of {} candidates (just in time): best {} "
          "predicted cycles, the choice {:+.2f}% from it",
          tried, candidates(graph, order).size(), *exhaustive,
          percent_from(r.predicted_cycles, *exhaustive));
    }
    graph = std::move(chosen->graph);
    order = std::move(chosen->order);
    return r;
  }
  const std::string ways = options.swap && options.recompute
                               ? "swapping activations to host memory and recomputing them"
                           : options.swap ? "swapping activations to host memory"
                                          : "recomputing activations";
  // Treating every candidate can cost more than it saves (a recomputation's other outputs): the
  // step as scheduled is then the least.
  const uint64_t planned = reached_dram(graph, order, options);
  uint64_t least = planned;
  for (const bool prefer_recompute : {true, false}) {
    if (prefer_recompute && !options.recompute) continue;
    const Fitted f = treat_all(graph, order, options, prefer_recompute);
    least = std::min(least, reached_dram(f.graph, f.order, options));
  }
  // On a step of few candidates the exact formulation can fit below that (it leaves out the
  // candidates whose treatment adds more than it frees, and chains recomputations in any
  // order): the smallest budget it fits, by bisection between nothing and `least`.
  if (candidates(graph, order).size() <= kIlpCandidates) {
    uint64_t lo = 0, hi = least;
    for (int i = 0;
         i < 24 && hi - lo > options.alignment && std::chrono::steady_clock::now() < deadline;
         ++i) {
      BudgetOptions at = options;
      at.budget = lo + (hi - lo) / 2;
      const IlpOutcome ilp = ilp_fit(graph, order, at, deadline);
      if (ilp.fitted)
        hi = std::min(at.budget, reached_dram(ilp.fitted->graph, ilp.fitted->order, options));
      else
        lo = at.budget;
    }
    least = hi;  // what a solution reached; a budget an alignment below did not fit
  }
  // The tensors' lifetimes need `need`; the plan's layout can take more (fragmentation), and
  // the budget holds the plan: say both, or a budget equal to the need reads as enough.
  const uint64_t need = needed_dram(graph, order, options.alignment);
  const std::string as_planned =
      planned > need ? fmt::format(" by its tensors' lifetimes, {} bytes ({:.1f} MiB) as planned",
                                   planned, mib(planned))
                     : "";
  throw UserError(fmt::format(
      "--memory-budget {} bytes ({:.1f} MiB): the step needs {} bytes of DRAM ({:.1f} MiB){}; "
      "{} reaches {} bytes ({:.1f} MiB) at the least; give at least that",
      options.budget, mib(options.budget), need, mib(need), as_planned, ways, least, mib(least)));
}

}  // namespace s2::schedule
