#include "simulator/timing/pe_array_model.h"

#include <algorithm>
#include <cmath>

#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"
#include "simulator/timing/ppu_model.h"

namespace s2::sim::timing {
namespace {

uint64_t bytes_per_cycle(const target::SramBufferDesc& b) {
  return uint64_t{b.banks} * b.bank_width_bytes;
}

void check_pass(const PassShape& p, const PassShape& limit) {
  // Hot path: build the message only on failure.
  if (p.m == 0 || p.n == 0 || p.k == 0) throw InternalError("timing: empty PE array pass");
  if ((limit.m != 0 && p.m > limit.m) || (limit.n != 0 && p.n > limit.n) ||
      (limit.k != 0 && p.k > limit.k))
    throw InternalError("timing: PE array pass " + std::to_string(p.m) + "x" + std::to_string(p.n) +
                        "x" + std::to_string(p.k) + " exceeds the array");
}

class WeightStationary final : public PeArrayModel {
 public:
  WeightStationary(const target::TargetDesc& t, isa::DType dtype)
      : PeArrayModel(t, dtype), max_m_(t.sram.accumulator.size_bytes / (kF32Bytes * cols_)) {
    if (max_m_ == 0)
      t.fail("sram.accumulator.size", std::to_string(t.sram.accumulator.size_bytes) +
                                          " bytes hold no row of partial sums for " +
                                          std::to_string(cols_) + " PE columns (" +
                                          std::to_string(kF32Bytes * cols_) + " bytes)");
  }
  PassShape max_pass() const override { return {max_m_, cols_, k_rows()}; }
  // Each group's input rows are its own array rows, so groups pack along both edges.
  uint64_t groups_per_pass(uint64_t k, uint64_t n) const override {
    if (k == 0 || n == 0 || k > k_rows() || n > cols_) return 1;
    return std::min(k_rows() / k, cols_ / n);
  }
  uint64_t pass_cycles(const PassShape& p) const override {
    check_pass(p, max_pass());
    const uint64_t load = p.k * beats(element_bytes_ * p.n, weight_bytes_per_cycle_);
    const uint64_t fill = (rows_ - 1) + (cols_ - 1);
    const uint64_t stream = p.m * std::max(beats(element_bytes_ * p.k, in_bytes_per_cycle_),
                                           beats(kF32Bytes * p.n, acc_bytes_per_cycle_));
    return load + fill + stream + kAccumulateLatency + (macs_per_pe_ - 1);
  }
  uint64_t drain_interval(const PassShape& p) const override {
    return std::max(beats(element_bytes_ * p.k, in_bytes_per_cycle_),
                    beats(kF32Bytes * p.n, acc_bytes_per_cycle_));
  }

 private:
  // The reduction steps a pass holds: m chains of R rows.
  uint64_t k_rows() const { return rows_ * macs_per_pe_; }
  uint64_t max_m_;  // accumulator rows per PE column: the streamed rows one pass can hold
};

class OutputStationary final : public PeArrayModel {
 public:
  OutputStationary(const target::TargetDesc& t, isa::DType dtype) : PeArrayModel(t, dtype) {}
  PassShape max_pass() const override { return {rows_, cols_, 0}; }
  // A row's streamed operand (one output pixel's inputs over time) is shared by every column,
  // and columns of different groups need different input channels: no packing.
  uint64_t groups_per_pass(uint64_t /*k*/, uint64_t /*n*/) const override { return 1; }
  uint64_t pass_cycles(const PassShape& p) const override {
    check_pass(p, max_pass());
    const uint64_t fill = (rows_ - 1) + (cols_ - 1);
    const uint64_t m = macs_per_pe_;
    const uint64_t stream = (p.k + m - 1) / m *
                            std::max(beats(element_bytes_ * p.m * m, in_bytes_per_cycle_),
                                     beats(element_bytes_ * p.n * m, weight_bytes_per_cycle_));
    const uint64_t drain = p.m * beats(kF32Bytes * p.n, acc_bytes_per_cycle_);
    return fill + stream + drain + kAccumulateLatency;
  }
  uint64_t drain_interval(const PassShape& p) const override {
    return beats(kF32Bytes * p.n, acc_bytes_per_cycle_);
  }
};

// The chunks a dimension of `size` splits into with chunks of at most `limit` (0: one
// chunk): {full chunk size, count}, {remainder, 0 or 1}.
struct Split {
  uint64_t full, full_count, rest;
};
Split split(uint64_t size, uint64_t limit) {
  if (limit == 0 || size <= limit) return {size, 1, 0};
  return {limit, size / limit, size % limit};
}

}  // namespace

PeArrayModel::PeArrayModel(const target::TargetDesc& t, isa::DType dtype)
    : dtype_(dtype),
      element_bytes_(isa::dtype_bytes(dtype)),
      macs_per_pe_(t.pe_array.macs_per_pe(dtype)),
      rows_(t.pe_array.rows),
      cols_(t.pe_array.cols),
      in_bytes_per_cycle_(bytes_per_cycle(t.sram.input)),
      weight_bytes_per_cycle_(bytes_per_cycle(t.sram.weight)),
      acc_bytes_per_cycle_(bytes_per_cycle(t.sram.accumulator)) {
  S2_CHECK(macs_per_pe_ > 0, "timing: target '" + t.name + "' does not multiply " +
                                 std::string(isa::dtype_name(dtype)));
  S2_CHECK(rows_ > 0 && cols_ > 0 && in_bytes_per_cycle_ > 0 && weight_bytes_per_cycle_ > 0 &&
               acc_bytes_per_cycle_ > 0,
           "timing: target '" + t.name + "' has an empty PE array or SRAM port");
}

uint64_t PeArrayModel::tile_cycles(const PassShape& tile) const {
  if (tile.m == 0 || tile.n == 0 || tile.k == 0) return 0;
  const PassShape limit = max_pass();
  const Split sm = split(tile.m, limit.m), sn = split(tile.n, limit.n), sk = split(tile.k, limit.k);
  uint64_t total = 0;
  for (const auto& [m, cm] : {std::pair{sm.full, sm.full_count}, std::pair{sm.rest, uint64_t{1}}})
    for (const auto& [n, cn] : {std::pair{sn.full, sn.full_count}, std::pair{sn.rest, uint64_t{1}}})
      for (const auto& [k, ck] :
           {std::pair{sk.full, sk.full_count}, std::pair{sk.rest, uint64_t{1}}})
        if (m > 0 && n > 0 && k > 0) total += cm * cn * ck * pass_cycles({m, n, k});
  return total;
}

uint64_t PeArrayModel::streamed_tile_cycles(const PassShape& tile, double epilogue_rate,
                                            uint64_t epilogue_latency) const {
  if (tile.m == 0 || tile.n == 0 || tile.k == 0) return 0;
  const PassShape limit = max_pass();
  const uint64_t lm = limit.m == 0 ? tile.m : limit.m, ln = limit.n == 0 ? tile.n : limit.n,
                 lk = limit.k == 0 ? tile.k : limit.k;
  // The K blocks: (tile.k - 1) / lk full ones, then the last, which drains.
  const uint64_t k_full = (tile.k - 1) / lk, k_last = tile.k - k_full * lk;
  const Split sm = split(tile.m, limit.m);
  uint64_t edge = 0;  // edges of the passes so far
  uint64_t last = 0;  // the edge capturing the PPU's latest beat so far (0: none yet)
  for (uint64_t n0 = 0; n0 < tile.n; n0 += ln) {
    const uint64_t n = std::min(ln, tile.n - n0);
    const auto beats = static_cast<uint64_t>(
        std::ceil(static_cast<double>(n) / epilogue_rate));  // the PPU's cycles per row
    if (k_full > 0)
      edge += k_full * (sm.full_count * pass_cycles({sm.full, n, lk}) +
                        (sm.rest > 0 ? pass_cycles({sm.rest, n, lk}) : 0));
    for (uint64_t m0 = 0; m0 < tile.m; m0 += lm) {
      const PassShape p{std::min(lm, tile.m - m0), n, k_last};
      const uint64_t c = pass_cycles(p);
      const uint64_t first = edge + c - (p.m - 1) * drain_interval(p);  // row 0 final
      // The queue's last beat: behind the earlier rows', or behind this pass's first or last
      // row (the bound over the pass's rows is linear in the row, so an end attains it).
      last = std::max({last + p.m * beats, first + p.m * beats - 1, edge + c + beats - 1});
      edge += c;
    }
  }
  return std::max(edge, last + epilogue_latency);
}

uint64_t PeArrayModel::passes(const PassShape& tile) const {
  if (tile.m == 0 || tile.n == 0 || tile.k == 0) return 0;
  const PassShape limit = max_pass();
  auto count = [](uint64_t size, uint64_t lim) {
    return lim == 0 ? uint64_t{1} : (size + lim - 1) / lim;
  };
  return count(tile.m, limit.m) * count(tile.n, limit.n) * count(tile.k, limit.k);
}

const PeArrayModelRegistry& pe_array_model_registry() {
  static const PeArrayModelRegistry registry = [] {
    PeArrayModelRegistry r("PE-array dataflow");
    r.add("weight_stationary", [](const target::TargetDesc& t, isa::DType dtype) {
      return std::make_unique<WeightStationary>(t, dtype);
    });
    r.add("output_stationary", [](const target::TargetDesc& t, isa::DType dtype) {
      return std::make_unique<OutputStationary>(t, dtype);
    });
    // The target schema (isa/target) knows the dataflows the hardware contract has: each one
    // has a model here, so a loaded target always finds its own.
    for (std::string_view name : target::kDataflowNames)
      S2_CHECK(r.contains(name), "timing: dataflow '" + std::string(name) +
                                     "' of the target schema has no PE-array model");
    return r;
  }();
  return registry;
}

std::unique_ptr<PeArrayModel> make_pe_array_model(std::string_view dataflow,
                                                  const target::TargetDesc& target,
                                                  isa::DType dtype) {
  return pe_array_model_registry().get(dataflow)(target, dtype);
}

std::unique_ptr<PeArrayModel> make_pe_array_model(const target::TargetDesc& target,
                                                  isa::DType dtype) {
  return make_pe_array_model(target::name(target.pe_array.dataflow), target, dtype);
}

PeArrayModels::PeArrayModels(const target::TargetDesc& target) : target_name_(target.name) {
  for (const auto& entry : target.pe_array.datatypes)
    models_.emplace(entry.first, make_pe_array_model(target, entry.first));
  S2_CHECK(!models_.empty(), "timing: target '" + target.name + "' multiplies no element type");
}

const PeArrayModel& PeArrayModels::get(isa::DType dtype) const {
  const auto it = models_.find(dtype);
  if (it != models_.end()) return *it->second;
  std::string known;
  for (const auto& entry : models_)
    known += (known.empty() ? "" : ", ") + std::string(isa::dtype_name(entry.first));
  throw UserError("the PE array of target '" + target_name_ + "' does not multiply " +
                  std::string(isa::dtype_name(dtype)) + " (pe_array.datatypes lists " + known +
                  ")");
}

const PeArrayModel& PeArrayModels::for_instruction(const isa::Instruction& inst) const {
  if (const std::optional<isa::DType> mode = isa::multiplicand_dtype(inst)) return get(*mode);
  const auto f32 = models_.find(isa::DType::F32);
  return f32 != models_.end() ? *f32->second : *models_.begin()->second;
}

uint64_t epilogue_cycles(const target::TargetDesc& target, uint64_t elements,
                         uint64_t element_bytes) {
  return ppu_pass_cycles(target, target::PpuOp::Epilogue, elements, element_bytes);
}

uint64_t epilogue_tail(const target::TargetDesc& target, const PeArrayModel& model,
                       const PassShape& tile, uint64_t element_bytes) {
  return model.streamed_tile_cycles(tile, ppu_rate(target, target::PpuOp::Epilogue, element_bytes),
                                    target.ppu.cost(target::PpuOp::Epilogue).latency) -
         model.tile_cycles(tile);
}

}  // namespace s2::sim::timing
