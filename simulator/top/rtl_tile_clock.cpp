#include "simulator/top/rtl_tile_clock.h"

#include <algorithm>
#include <memory>

#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"
#include "simulator/functional/eltwise.h"
#include "simulator/functional/epilogue.h"
#include "simulator/rtl/rtl_pe_gemm.h"
#include "simulator/rtl/rtl_ppu_lanes.h"

namespace s2::sim::top {
namespace {

std::string shape_text(uint64_t m, uint64_t n, uint64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// Records a tile's cycles; the first difference becomes the divergence text.
void record(rtl::TimingCosim& u, const std::string& where, uint64_t passes, uint64_t rtl_cycles,
            uint64_t model_cycles, const std::string& first_pass_divergence) {
  ++u.tiles;
  u.passes += passes;
  u.rtl_cycles += rtl_cycles;
  u.model_cycles += model_cycles;
  if (rtl_cycles == model_cycles && first_pass_divergence.empty()) return;
  ++u.divergences;
  if (u.first.empty())
    u.first = where + ": RTL " + std::to_string(rtl_cycles) + " cycles, model " +
              std::to_string(model_cycles) +
              (first_pass_divergence.empty() ? "" : "; " + first_pass_divergence);
}

}  // namespace

// The PPU epilogue behind the PE array's drain port: one streamed PPU RTL pass over a tile's
// M_b x N_b results, clocked in step with the array (PeArrayFollower). Each row the array
// drains -- or, when the array's cycles are the model's, each row the model makes final --
// becomes ceil(N_t / width) beats, which the PPU takes one per edge, in order
// (pe_array_model.h, "streamed").
class DrainedEpilogue final : public s2::rtl::PeArrayFollower {
 public:
  // `rows` receives the drained values (the pass's in0) and must hold the pass's elements;
  // in1..in3 and out0/out1 as RtlPpuSc::stream_pass takes them.
  DrainedEpilogue(s2::rtl::RtlPpuSc& ppu, const s2::rtl::PpuPass& pass, uint64_t period_ps,
                  uint32_t* rows, const uint32_t* zeros, uint32_t* out0, uint32_t* out1)
      : half_(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(period_ps / 2))),
        rows_(rows),
        zeros_(zeros),
        capacity_(pass.elements),
        beats_(pass.width),
        stream_(ppu.stream_pass(pass, rows, zeros, zeros, zeros, out0, out1)) {}

  // The elements of each row the coming passes drain (0: they do not drain).
  void set_row_width(uint32_t n) { row_n_ = n; }

  void before_rise(bool drain_valid, uint32_t /*row*/, const uint32_t* data) override {
    if (drain_valid) {
      S2_CHECK(row_n_ > 0 && filled_ + row_n_ <= capacity_,
               "RTL tile clock: the PE array drained a row the epilogue does not expect");
      std::copy(data, data + row_n_, rows_ + filled_);
      filled_ += row_n_;
      beats_.push_row(row_n_);
    }
    beats_.offer(*stream_);
  }
  void rise() override { stream_->rise(); }
  void after_rise() override { done_ = stream_->after_rise(); }
  void fall() override { stream_->fall(); }

  // One clock edge without the array (its passes waited from the model, or the tail after
  // them): the PPU's edge, `drained` whether a row becomes final at it.
  void edge_alone(bool drained) {
    sc_core::wait(half_);
    before_rise(drained, 0, zeros_);
    rise();
    sc_core::wait(half_);
    after_rise();
    fall();
  }
  // A pass of the array waited from the model: c edges, the rows final as the model has them
  // (row i of m at edge c - (m - 1 - i) * d) when `drains`.
  void model_pass(uint64_t c, uint64_t d, uint64_t m, bool drains) {
    const uint64_t first = c - (m - 1) * d;
    for (uint64_t e = 1; e <= c; ++e)
      edge_alone(drains && e >= first && (e - first) % d == 0);
  }
  bool done() const { return done_; }

 private:
  sc_core::sc_time half_;
  uint32_t* rows_;
  const uint32_t* zeros_;
  uint64_t capacity_;
  s2::rtl::RowBeats beats_;
  std::unique_ptr<s2::rtl::RtlPpuSc::Streamed> stream_;
  uint32_t row_n_ = 0;
  uint64_t filled_ = 0;
  bool done_ = false;
};

RtlTileClock::RtlTileClock(const RtlUnits& units, const target::TargetDesc& target,
                           rtl::CosimLog& log, bool reuse)
    : units_(units), target_(target), log_(log), reuse_(reuse), models_(target) {
  if (units_.pe_array != nullptr)
    rtl::configure_rtl_pe(*units_.pe_array, target,
                          models_.get(target.pe_array.datatypes.begin()->first));
  if (units_.ppu != nullptr) {
    rtl::check_rtl_ppu_target(target);
    // Every cost entry the RTL runs must stream a whole number of elements per cycle.
    for (target::PpuOp op : {target::PpuOp::Epilogue, target::PpuOp::Eltwise, target::PpuOp::Sgd})
      s2::rtl::ppu_pass_width(
          target.ppu.lanes, target.ppu.cost(op).throughput,
          target.where("ppu.ops." + std::string(target::name(op)) + ".throughput"));
  }
}

bool RtlTileClock::clocks(isa::Unit unit) const {
  if (unit == isa::Unit::Pe) return units_.pe_array != nullptr || units_.epilogue_ppu != nullptr;
  if (unit == isa::Unit::Ppu) return units_.ppu != nullptr;
  return false;
}

void RtlTileClock::wait_cycles(uint64_t cycles) const {
  if (cycles > 0)
    sc_core::wait(
        sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(cycles * units_.period_ps)));
}

void RtlTileClock::record_pe(const std::string& where, const timing::PassShape& s, isa::DType mode,
                             const Clocked& clocked, uint64_t model_cycles) {
  record(log_.timing_pe_array,
         where + " (" + shape_text(s.m, s.n, s.k) + " M_b x N_b x K_b, " +
             std::string(isa::dtype_name(mode)) + ")",
         clocked.passes, clocked.cycles, model_cycles, clocked.divergence);
}

uint64_t RtlTileClock::compute(isa::Unit unit, uint32_t index, const std::string& op,
                               const isa::Instruction& inst, size_t tile_index,
                               const timing::Tile& tile) {
  const std::string where =
      "instruction " + std::to_string(index) + " (" + op + "), tile " + std::to_string(tile_index);
  const isa::DType mode = isa::multiplicand_dtype(inst).value_or(isa::DType::F32);
  // Fused attention: its tiles' products, and PPU work the RTL has no op for (the softmax, and
  // in the backward the row sums of tiles with no product at all).
  if (unit == isa::Unit::Pe && (!tile.products.empty() || tile.shape.m * tile.shape.n == 0)) {
    const timing::PeArrayModel& model = models_.get(mode);
    uint64_t cycles = 0;
    for (const timing::PassShape& p : tile.products)
      cycles += pe_product(where, p, model.tile_cycles(p), mode);
    rtl::TimingCosim& u = log_.timing_epilogue;
    if (tile.ppu_cycles > 0 && units_.epilogue_ppu != nullptr) {
      ++u.model_timed_tiles;
      u.model_timed_cycles += tile.ppu_cycles;
      u.model_timed_ops.insert(std::string(inst.info().mnemonic) +
                               (tile.products.empty() ? " row sums" : " softmax"));
    }
    wait_cycles(tile.ppu_cycles);
    return cycles + tile.ppu_cycles;
  }
  if (unit == isa::Unit::Pe) return pe_tile(where, inst, tile, mode);
  return ppu_tile(where, inst, tile);
}

RtlTileClock::Clocked RtlTileClock::pe_passes(const std::string& where, const timing::PassShape& s,
                                              uint64_t model_cycles, isa::DType mode,
                                              DrainedEpilogue* epilogue) {
  if (model_cycles == 0) return {};
  if (units_.pe_array == nullptr && epilogue == nullptr) {
    wait_cycles(model_cycles);
    return {0, model_cycles, 0, ""};
  }
  const PeKey key{s.m, s.n, s.k, mode, -1};
  if (epilogue == nullptr && reuse_) {
    const auto hit = pe_clocked_.find(key);
    if (hit != pe_clocked_.end()) {
      const Clocked& c = hit->second;
      wait_cycles(c.cycles);
      ++log_.timing_pe_array.reused_tiles;
      record_pe(where, s, mode, c, model_cycles);
      return c;
    }
  }
  const timing::PeArrayModel& model = models_.get(mode);
  const timing::PassShape limit = model.max_pass();
  const size_t largest = std::max({std::min(s.m, limit.m) * std::min(s.k, limit.k),
                                   std::min(s.k, limit.k) * std::min(s.n, limit.n),
                                   std::min(s.m, limit.m) * std::min(s.n, limit.n)});
  if (zeros_.size() < largest) zeros_.resize(largest, 0);
  if (out0_.size() < largest) out0_.resize(largest);
  uint64_t passes = 0, cycles = 0;
  std::string divergence;
  // The model's cut of the tile into passes, in its order (pe_array_model.h): column blocks,
  // K blocks, row blocks. The passes of the last K block drain into the epilogue.
  for (uint64_t n0 = 0; n0 < s.n; n0 += limit.n)
    for (uint64_t k0 = 0; k0 < s.k; k0 += limit.k)
      for (uint64_t m0 = 0; m0 < s.m; m0 += limit.m) {
        const s2::rtl::PePass pass{static_cast<uint32_t>(std::min(limit.m, s.m - m0)),
                                   static_cast<uint32_t>(std::min(limit.n, s.n - n0)),
                                   static_cast<uint32_t>(std::min(limit.k, s.k - k0)), mode};
        const timing::PassShape shape{pass.m, pass.n, pass.k};
        const uint64_t want = model.pass_cycles(shape);
        const bool drains = epilogue != nullptr && k0 + limit.k >= s.k;
        if (epilogue != nullptr) epilogue->set_row_width(drains ? pass.n : 0);
        uint64_t got = want;
        // c accumulates zeros into zeros: the values are scratch, the cycles are the point.
        // (Without the array's RTL there is an epilogue: the early return above.)
        if (units_.pe_array != nullptr && epilogue != nullptr)
          got =
              units_.pe_array->run_followed_pass(pass, drains, zeros_.data(), pass.k, zeros_.data(),
                                                 pass.n, out0_.data(), pass.n, *epilogue);
        else if (units_.pe_array != nullptr)
          got = units_.pe_array->run_pass(pass, zeros_.data(), pass.k, zeros_.data(), pass.n,
                                          out0_.data(), pass.n);
        else if (epilogue != nullptr)
          epilogue->model_pass(want, model.drain_interval(shape), pass.m, drains);
        if (got != want && divergence.empty())
          divergence = "pass " + std::to_string(passes) + " (" +
                       shape_text(pass.m, pass.n, pass.k) + " M_t x N_t x K_t): RTL " +
                       std::to_string(got) + " cycles, model " + std::to_string(want);
        ++passes;
        cycles += got;
      }
  Clocked clocked{passes, cycles, 0, divergence};
  if (units_.pe_array != nullptr) record_pe(where, s, mode, clocked, model_cycles);
  if (epilogue == nullptr) pe_clocked_[key] = clocked;
  return clocked;
}

uint64_t RtlTileClock::pe_tile(const std::string& where, const isa::Instruction& inst,
                               const timing::Tile& tile, isa::DType mode) {
  if (tile.ppu_cycles == 0) return pe_product(where, tile.shape, tile.pe_cycles, mode);
  const isa::Activation act = inst.has_field(isa::Field::Act)
                                  ? inst.as<isa::Activation>(isa::Field::Act)
                                  : isa::Activation::None;
  const bool gated = inst.has_slot(isa::Slot::Gate) && inst.operand(isa::Slot::Gate).has_value();
  // The PPU RTL's gate is relu's mask (rtl_models/ppu): other gate_act stages are timed by the
  // model, like the activations it lacks.
  const isa::Activation gate_act = gated ? functional::gate_act_of(inst) : isa::Activation::Relu;
  const bool rtl_act = act == isa::Activation::None || act == isa::Activation::Relu;
  const bool rtl_gate = gate_act == isa::Activation::Relu;
  // Nor does it write a second output (pre, the activation's input).
  const bool pre = inst.has_slot(isa::Slot::Pre) && inst.operand(isa::Slot::Pre).has_value();
  if (units_.epilogue_ppu == nullptr || !rtl_act || !rtl_gate || pre) {
    if (units_.epilogue_ppu != nullptr) {
      rtl::TimingCosim& u = log_.timing_epilogue;
      ++u.model_timed_tiles;
      u.model_timed_cycles += tile.epilogue_tail;
      u.model_timed_ops.insert(!rtl_act    ? "act " + std::string(isa::activation_name(act))
                               : !rtl_gate ? "gate " + std::string(isa::activation_name(gate_act))
                                           : std::string("pre output"));
    }
    const uint64_t cycles = pe_product(where, tile.shape, tile.pe_cycles, mode);
    wait_cycles(tile.epilogue_tail);
    return cycles + tile.epilogue_tail;
  }
  s2::rtl::PpuPass pass;
  pass.op = s2::rtl::PpuRtlOp::Epilogue;
  pass.bias = inst.has_slot(isa::Slot::Bias) && inst.operand(isa::Slot::Bias).has_value();
  pass.residual =
      inst.has_slot(isa::Slot::Residual) && inst.operand(isa::Slot::Residual).has_value();
  pass.gate = gated;
  pass.relu = act == isa::Activation::Relu;
  const target::PpuOpCost& cost = target_.ppu.cost(target::PpuOp::Epilogue);
  pass.elements = tile.shape.m * tile.shape.n;
  pass.width = s2::rtl::ppu_pass_width(target_.ppu.lanes, cost.throughput,
                                       target_.where("ppu.ops.epilogue.throughput"));
  pass.latency = cost.latency;
  const std::string tail_where =
      where + " epilogue tail (" + std::to_string(pass.elements) + " elements streamed)";
  const PeKey key{tile.shape.m, tile.shape.n, tile.shape.k, mode,
                  pass.bias | pass.residual << 1 | pass.gate << 2 | pass.relu << 3};
  if (reuse_) {
    const auto hit = pe_clocked_.find(key);
    if (hit != pe_clocked_.end()) {
      const Clocked& c = hit->second;
      wait_cycles(c.cycles + c.tail);
      if (units_.pe_array != nullptr) {
        ++log_.timing_pe_array.reused_tiles;
        record_pe(where, tile.shape, mode, c, tile.pe_cycles);
      }
      ++log_.timing_epilogue.reused_tiles;
      record(log_.timing_epilogue, tail_where, 1, c.tail, tile.epilogue_tail, "");
      return c.cycles + c.tail;
    }
  }
  for (std::vector<uint32_t>* v : {&ep_zeros_, &ep_rows_, &ep_out0_, &ep_out1_})
    if (v->size() < pass.elements) v->resize(pass.elements, 0);
  DrainedEpilogue epilogue(*units_.epilogue_ppu, pass, units_.period_ps, ep_rows_.data(),
                           ep_zeros_.data(), ep_out0_.data(), ep_out1_.data());
  Clocked clocked = pe_passes(where, tile.shape, tile.pe_cycles, mode, &epilogue);
  // The tail: the PPU alone until it has written the tile's last result. A watchdog, not the
  // count: every beat and the pipeline again.
  const uint64_t bound = tile.epilogue_tail + pass.latency + pass.elements + 64;
  uint64_t tail = 0;
  while (!epilogue.done()) {
    epilogue.edge_alone(false);
    ++tail;
    S2_CHECK(tail <= bound, where + ": the streamed epilogue did not finish within " +
                                std::to_string(bound) + " cycles after the array");
  }
  record(log_.timing_epilogue, tail_where, 1, tail, tile.epilogue_tail, "");
  clocked.tail = tail;
  pe_clocked_[key] = clocked;
  return clocked.cycles + tail;
}

uint64_t RtlTileClock::ppu_tile(const std::string& where, const isa::Instruction& inst,
                                const timing::Tile& tile) {
  if (tile.ppu_cycles == 0) return 0;
  s2::rtl::PpuPass pass;
  bool on_rtl = units_.ppu != nullptr && tile.ppu_op.has_value();
  std::optional<s2::rtl::PpuRtlOp> eltwise;
  if (on_rtl && *tile.ppu_op == target::PpuOp::Eltwise)
    eltwise = rtl::to_rtl_op(functional::lane_op(inst.as<isa::EltwiseOp>(isa::Field::Op)));
  if (eltwise)
    pass.op = *eltwise;
  else if (on_rtl && *tile.ppu_op == target::PpuOp::Sgd)
    pass.op = s2::rtl::PpuRtlOp::Sgd;
  else if (on_rtl && *tile.ppu_op == target::PpuOp::Cast)
    pass.op = s2::rtl::PpuRtlOp::Cast;  // the element types change no cycle (ppu.sv)
  else
    on_rtl = false;
  if (!on_rtl) {
    rtl::TimingCosim& u = log_.timing_ppu;
    ++u.model_timed_tiles;
    u.model_timed_cycles += tile.ppu_cycles;
    u.model_timed_ops.insert(std::string(inst.info().mnemonic));
    wait_cycles(tile.ppu_cycles);
    return tile.ppu_cycles;
  }
  const PpuKey key{static_cast<int>(pass.op), *tile.ppu_op, tile.elements};
  const auto hit = reuse_ ? ppu_clocked_.find(key) : ppu_clocked_.end();
  uint64_t cycles = 0;
  if (hit != ppu_clocked_.end()) {
    cycles = hit->second;
    wait_cycles(cycles);
    ++log_.timing_ppu.reused_tiles;
  } else {
    cycles = ppu_pass(*units_.ppu, pass, *tile.ppu_op, tile.elements);
    ppu_clocked_[key] = cycles;
  }
  record(log_.timing_ppu, where + " (" + std::to_string(tile.elements) + " elements)", 1, cycles,
         tile.ppu_cycles, "");
  return cycles;
}

uint64_t RtlTileClock::ppu_pass(s2::rtl::RtlPpuSc& ppu, s2::rtl::PpuPass pass, target::PpuOp cost,
                                uint64_t elements) {
  const target::PpuOpCost& c = target_.ppu.cost(cost);
  pass.elements = elements;
  pass.width = s2::rtl::ppu_pass_width(
      target_.ppu.lanes, c.throughput,
      target_.where("ppu.ops." + std::string(target::name(cost)) + ".throughput"));
  pass.latency = c.latency;
  if (zeros_.size() < elements) zeros_.resize(elements, 0);
  if (out0_.size() < elements) out0_.resize(elements);
  if (out1_.size() < elements) out1_.resize(elements);
  const uint32_t* z = zeros_.data();
  return ppu.run_pass(pass, z, z, z, z, out0_.data(), out1_.data());
}

}  // namespace s2::sim::top
