#include "compiler/schedule/fit_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "compiler/memory/buffer.h"
#include "compiler/ops/registry.h"
#include "compiler/schedule/lifetimes.h"
#include "isa/common/errors.h"

namespace s2::schedule {
namespace {

constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();

bool is_backward(ir::OpCategory c) {
  return c == ir::OpCategory::ActivationGrad || c == ir::OpCategory::WeightGrad;
}

double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// Step of each op in `order`; kNever for ops not in it.
std::vector<uint32_t> steps_in(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
  std::vector<uint32_t> step(graph.num_ops(), kNever);
  for (size_t s = 0; s < order.size(); ++s)
    step[order[s].index()] = static_cast<uint32_t>(s);
  return step;
}

// Live DRAM bytes of the arena at each step, and the persistent bytes, of one order.
struct Occupancy {
  uint64_t persistent = 0;
  std::vector<uint64_t> live;  // per step
  uint32_t peak_step = 0;

  uint64_t peak() const { return live.empty() ? 0 : live[peak_step]; }
  uint64_t needed() const { return persistent + peak(); }
};

Occupancy occupancy(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                    uint64_t alignment) {
  const Lifetimes l = compute_lifetimes(graph, order);
  Occupancy o;
  std::vector<int64_t> delta(order.size() + 1, 0);
  for (const memory::Buffer& b : l.buffers) {
    if (b.space != isa::MemSpace::Dram) continue;
    const uint64_t size = memory::align_up(b.size, alignment);
    if (b.persistent) {
      o.persistent += size;
      continue;
    }
    delta[b.first] += static_cast<int64_t>(size);
    delta[b.last + 1] -= static_cast<int64_t>(size);
  }
  o.live.resize(order.size());
  int64_t live = 0;
  for (size_t s = 0; s < order.size(); ++s) {
    live += delta[s];
    o.live[s] = static_cast<uint64_t>(live);
    if (o.live[s] > o.live[o.peak_step]) o.peak_step = static_cast<uint32_t>(s);
  }
  return o;
}

// An activation that can be swapped: one forward writer, read by forward ops up to `last_fwd`
// and by backward ops from `first_bwd` on, its backward readers reaching it through `main` (the
// writer's dense output) or through views the backward makes of it.
struct Candidate {
  ir::DataId data;
  ir::TensorId main;
  uint64_t bytes = 0;
  uint32_t last_fwd = 0;
  uint32_t first_bwd = kNever;
};

std::vector<Candidate> candidates(const ir::Graph& graph, const std::vector<ir::OpId>& order) {
  const std::vector<uint32_t> step = steps_in(graph, order);
  struct Info {
    int writers = 0;
    ir::TensorId main;
    uint32_t last_fwd = 0;
    uint32_t first_bwd = kNever;
    bool fwd_read = false;
    bool blocked = false;  // a use the swap cannot follow
  };
  std::vector<Info> info(graph.num_datas());
  for (ir::TensorId t : graph.outputs())
    info[graph.tensor(t).data.index()].blocked = true;
  if (graph.loss().valid()) info[graph.tensor(graph.loss()).data.index()].blocked = true;
  for (size_t i = 0; i < graph.num_ops(); ++i) {
    const ir::Op& op = graph.op(ir::OpId(i));
    const bool view = ir::op_schema(op.type).fusion == ir::FusionClass::View;
    const uint32_t s = step[i];
    for (ir::TensorId out : op.outputs) {
      if (!out.valid()) continue;
      const ir::Tensor& t = graph.tensor(out);
      Info& d = info[t.data.index()];
      if (view) continue;  // a view writes nothing
      ++d.writers;
      if (op.category != ir::OpCategory::Forward) d.blocked = true;
      if (t.offset == 0 && t.contiguous() && t.numel() == graph.data(t.data).numel) d.main = out;
    }
    for (ir::TensorId in : op.inputs) {
      if (!in.valid()) continue;
      Info& d = info[graph.tensor(in).data.index()];
      if (op.category == ir::OpCategory::Forward) {
        d.fwd_read = true;
        d.last_fwd = std::max(d.last_fwd, s);
      } else if (is_backward(op.category)) {
        d.first_bwd = std::min(d.first_bwd, s);
      } else {
        d.blocked = true;  // read by a weight update
      }
    }
  }
  // A backward reader must reach the data through `main` or a view made in the backward.
  for (size_t i = 0; i < graph.num_ops(); ++i) {
    const ir::Op& op = graph.op(ir::OpId(i));
    if (!is_backward(op.category)) continue;
    for (ir::TensorId in : op.inputs) {
      if (!in.valid()) continue;
      const ir::Tensor& t = graph.tensor(in);
      Info& d = info[t.data.index()];
      if (in == d.main) continue;
      if (!t.producer.valid() || !is_backward(graph.op(t.producer).category)) d.blocked = true;
    }
  }
  std::vector<Candidate> out;
  for (size_t k = 0; k < graph.num_datas(); ++k) {
    const ir::Data& data = graph.data(ir::DataId(k));
    const Info& d = info[k];
    if (d.blocked || d.writers != 1 || !d.main.valid() || !d.fwd_read || d.first_bwd == kNever ||
        is_persistent(data) || data.space != isa::MemSpace::Dram ||
        graph.op(graph.tensor(d.main).producer).category != ir::OpCategory::Forward ||
        d.first_bwd <= d.last_fwd + 1)
      continue;
    out.push_back({ir::DataId(k), d.main, data_bytes(data), d.last_fwd, d.first_bwd});
  }
  return out;
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

// The backward's readers of `c` read `replacement` (a dense copy of it: a swap-in or a
// recomputation) instead: every op in the order after c's last forward read that reads c.main
// reads `replacement`, and every view made there of c's data views the replacement's data
// (the same layout). Ops not in the order yet (the new ones) are left alone.
void redirect_backward(ir::Graph& graph, const std::vector<ir::OpId>& order, const Candidate& c,
                       ir::TensorId replacement) {
  const ir::DataId fresh = graph.tensor(replacement).data;
  const std::vector<uint32_t> step = steps_in(graph, order);
  for (size_t i = 0; i < graph.num_ops(); ++i) {
    ir::Op& op = graph.mutable_op(ir::OpId(i));
    if (step[i] == kNever || step[i] <= c.last_fwd) continue;
    for (ir::TensorId& in : op.inputs)
      if (in == c.main) in = replacement;
    for (ir::TensorId out : op.outputs)
      if (out.valid() && graph.tensor(out).data == c.data) graph.mutable_tensor(out).data = fresh;
  }
}

// The copy op of a swap of data `name`: y = x into host memory (host=1) or back into DRAM.
ir::TensorId add_copy(ir::Graph& graph, ir::TensorId x, bool to_host, const std::string& name) {
  const std::string base = name + (to_host ? ".swap_out" : ".swap_in");
  ir::Attrs attrs;
  attrs.set("host", int64_t{to_host ? 1 : 0});
  return graph.add(ir::OpType::Copy, graph.unique_name(base), ir::OpCategory::Forward, {x}, attrs);
}

// Swaps `c` out right after its last forward use and in right before the op now at step
// `in_before` (in (last_fwd + 1, first_bwd]). Returns the two copies.
std::pair<ir::OpId, ir::OpId> apply_swap(ir::Graph& graph, std::vector<ir::OpId>& order,
                                         const Candidate& c, uint32_t in_before) {
  const std::string name = graph.data(c.data).name;  // a copy: adding data moves the names
  const ir::TensorId host = add_copy(graph, c.main, true, name);
  const ir::TensorId back = add_copy(graph, host, false, name);
  redirect_backward(graph, order, c, back);
  const ir::OpId out_op = graph.tensor(host).producer, in_op = graph.tensor(back).producer;
  order.insert(order.begin() + c.last_fwd + 1, out_op);
  order.insert(order.begin() + in_before + 1, in_op);  // one later: the swap-out came first
  return {out_op, in_op};
}

// Whether `c` can be recomputed right before its first backward use, from exactly the values
// its producer read: the producer computes (not a copy or a view), writes nothing in place (so
// running it twice changes no state: batch norm's running statistics, dropout's counter), and
// each of its inputs is persistent or still live then, and written by nothing in between.
bool recomputable(const ir::Graph& graph, const std::vector<ir::OpId>& order,
                  const Lifetimes& lifetimes, const std::vector<uint32_t>& step,
                  const Candidate& c) {
  const ir::OpId producer = graph.tensor(c.main).producer;
  const ir::Op& p = graph.op(producer);
  if (p.type == ir::OpType::Copy || ir::op_schema(p.type).fusion == ir::FusionClass::View ||
      graph.writes_in_place(p))
    return false;
  std::vector<ir::DataId> read;
  for (ir::TensorId in : p.inputs) {
    if (!in.valid()) continue;
    const ir::DataId d = graph.tensor(in).data;
    const int32_t b = lifetimes.buffer_of_data[d.index()];
    if (b < 0) return false;
    const memory::Buffer& buffer = lifetimes.buffers[static_cast<size_t>(b)];
    if (!buffer.persistent && buffer.last < c.first_bwd) return false;  // it would live longer
    read.push_back(d);
  }
  for (uint32_t s = step[producer.index()] + 1; s < c.first_bwd; ++s) {
    const ir::Op& op = graph.op(order[s]);
    if (ir::op_schema(op.type).fusion == ir::FusionClass::View) continue;
    for (ir::TensorId out : op.outputs)
      if (out.valid() && std::find(read.begin(), read.end(), graph.tensor(out).data) != read.end())
        return false;
  }
  return true;
}

// Recomputes `c` right before its first backward use: a clone of its producer (the backward's
// op, reading the same inputs) whose output replaces it there, the forward's copy dying after
// its last forward read. Returns the clone.
ir::OpId apply_recompute(ir::Graph& graph, std::vector<ir::OpId>& order, const Candidate& c) {
  const ir::Op producer = graph.op(graph.tensor(c.main).producer);
  size_t k = 0;
  while (producer.outputs[k] != c.main)
    ++k;
  const std::vector<ir::TensorId> outs =
      graph.add_op(producer.type, graph.unique_name(producer.name + ".recompute"),
                   ir::OpCategory::ActivationGrad, producer.inputs, producer.attrs);
  const ir::TensorId again = outs.at(k);
  for (ir::TensorId out : outs)
    if (out.valid()) graph.mutable_data(graph.tensor(out).data).role = isa::TensorRole::Activation;
  redirect_backward(graph, order, c, again);
  const ir::OpId clone = graph.tensor(again).producer;
  order.insert(order.begin() + c.first_bwd, clone);
  return clone;
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

// One greedy run with the ways `options` allows; nullopt when it gets stuck above the budget
// (no candidate is live across the peak). Without `prefetch` every swap-in comes just in time,
// which hides less of the link but never raises a later step (near the smallest budget the
// prefetched copies can leave a peak no candidate spans).
std::optional<BudgetResult> greedy_fit(ir::Graph& graph, std::vector<ir::OpId>& order,
                                       const BudgetOptions& options, bool prefetch) {
  BudgetResult r;
  Occupancy o = occupancy(graph, order, options.alignment);
  r.needed_before = o.needed();
  CostCache costs_of(options.cost);
  r.unconstrained_cycles =
      predicted_cycles(graph, order, costs_of.of_steps(graph, order), options.dram_bytes_per_cycle);
  std::vector<Candidate> initial = candidates(graph, order);
  for (const Candidate& c : initial)
    r.kept_bytes += c.bytes;
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
    r.kept_bytes -= best->bytes;
    o = occupancy(graph, order, options.alignment);
  }
  if (copies.empty() && clones.empty()) {
    r.needed_after = r.needed_before;
    r.predicted_cycles = r.unconstrained_cycles;
    r.summary = fmt::format("fits: {:.1f} MiB needed of {:.1f} MiB, nothing swapped or recomputed",
                            mib(r.needed_before), mib(options.budget));
    return r;
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

}  // namespace

BudgetResult fit_memory_budget(ir::Graph& graph, std::vector<ir::OpId>& order,
                               const BudgetOptions& options) {
  S2_CHECK(static_cast<bool>(options.cost), "fit_memory_budget: no cost table");
  if (options.budget == 0) {
    BudgetResult r;
    r.needed_before = r.needed_after = needed_dram(graph, order, options.alignment);
    r.summary = "no budget (--memory-budget)";
    return r;
  }
  // The greedy with every way allowed and with each alone (one way's early choices can pin what
  // the other needs later), with swap-ins prefetched and just in time: the fitting result of
  // the fewest predicted cycles.
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
  std::optional<BudgetResult> chosen;
  ir::Graph chosen_graph;
  std::vector<ir::OpId> chosen_order;
  for (const Variant& v : variants) {
    if (!v.prefetch && !v.swap) continue;  // the same as with prefetch
    ir::Graph g = graph;
    std::vector<ir::OpId> ord = order;
    BudgetOptions one = options;
    one.swap = v.swap;
    one.recompute = v.recompute;
    std::optional<BudgetResult> r = greedy_fit(g, ord, one, v.prefetch);
    if (r && (!chosen || r->predicted_cycles < chosen->predicted_cycles)) {
      chosen = std::move(r);
      chosen_graph = std::move(g);
      chosen_order = std::move(ord);
    }
  }
  if (chosen) {
    size_t tried = 0;
    if (chosen->changed)
      if (const auto exact = exhaustive_cycles(graph, order, options, &tried)) {
        chosen->exhaustive_cycles = *exact;
        chosen->summary += fmt::format(
            "; exhaustive search of the {} assignments of {} candidates (just in time): best {} "
            "predicted cycles, the greedy's {:+.2f}% from it",
            tried, candidates(graph, order).size(), *exact,
            100.0 * (static_cast<double>(chosen->predicted_cycles) / static_cast<double>(*exact) -
                     1.0));
      }
    if (chosen->changed) {
      graph = std::move(chosen_graph);
      order = std::move(chosen_order);
    }
    return *chosen;
  }
  auto ways = [&] {
    return options.swap && options.recompute ? std::string(
                                                   "swapping activations to host memory "
                                                   "and recomputing them")
           : options.swap ? std::string("swapping activations to host memory")
                          : std::string("recomputing activations");
  };
  // Applies one of the ways to `c` just in time, the preferred one first where allowed and
  // possible. False when neither applies.
  auto just_in_time = [&](ir::Graph& g, std::vector<ir::OpId>& ord, const Candidate& c,
                          const Lifetimes& l, const std::vector<uint32_t>& step,
                          bool prefer_recompute) {
    const bool can_recompute = options.recompute && recomputable(g, ord, l, step, c);
    if (can_recompute && (prefer_recompute || !options.swap)) {
      apply_recompute(g, ord, c);
      return true;
    }
    if (options.swap) {
      apply_swap(g, ord, c, c.first_bwd);
      return true;
    }
    return false;
  };
  // The smallest DRAM the ways reach from the scheduled step: every candidate treated, each just
  // in time, preferring recomputation or swapping throughout (the better of the two).
  const ir::Graph scheduled = graph;
  const std::vector<ir::OpId> scheduled_order = order;
  auto smallest = [&] {
    uint64_t least = std::numeric_limits<uint64_t>::max();
    for (const bool prefer_recompute : {true, false}) {
      ir::Graph g = scheduled;
      std::vector<ir::OpId> ord = scheduled_order;
      for (bool progress = true; progress;) {
        progress = false;
        const Lifetimes l = compute_lifetimes(g, ord);
        const std::vector<uint32_t> step = steps_in(g, ord);
        for (const Candidate& c : candidates(g, ord))
          if (just_in_time(g, ord, c, l, step, prefer_recompute)) {
            progress = true;
            break;  // the order changed: look again
          }
      }
      const uint64_t needed = needed_dram(g, ord, options.alignment);
      least = std::min(
          least, options.planned_dram ? std::max(needed, options.planned_dram(g, ord)) : needed);
    }
    return least;
  };
  // Treating every candidate can cost more than it saves (a recomputation's other outputs): the
  // step as scheduled is then the least.
  const uint64_t need = needed_dram(graph, order, options.alignment);
  const uint64_t least = std::min(
      smallest(), options.planned_dram ? std::max(need, options.planned_dram(graph, order)) : need);
  throw UserError(fmt::format(
      "--memory-budget {} bytes ({:.1f} MiB): the step needs {} bytes of DRAM ({:.1f} MiB) and {} "
      "reaches {} bytes ({:.1f} MiB) at the least; give at least that",
      options.budget, mib(options.budget), needed_dram(graph, order, options.alignment),
      mib(needed_dram(graph, order, options.alignment)), ways(), least, mib(least)));
}

}  // namespace s2::schedule
