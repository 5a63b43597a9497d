#include "simulator/rtl/regress.h"

#include <algorithm>
#include <cfenv>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/common/hex.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"
#include "isa/numerics/pe_gemm.h"
#include "isa/target/target_desc.h"
#include "rtl_models/pe_array/pe_array_reference.h"
#include "rtl_models/pe_array/pe_array_rtl.h"
#include "rtl_models/ppu/ppu_rtl.h"
#include "simulator/functional/ppu_lanes.h"
#include "simulator/rtl/operand_mix.h"
#include "simulator/rtl/rtl_ppu_lanes.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/timing/ppu_model.h"

// Built with -frounding-math (simulator/CMakeLists.txt): the deliberately wrong model switches
// the rounding mode around the model's computation.

namespace s2::sim::rtl {
namespace {

struct ArraySize {
  uint32_t rows, cols;
};
constexpr ArraySize kArraySizes[] = {{32, 32}, {16, 16}, {8, 4}};
// The PE array's multiply modes: a tile's multiplicands are of one of these types.
constexpr isa::DType kPeModes[] = {isa::DType::F32, isa::DType::BF16, isa::DType::F16};
constexpr uint32_t kLaneCounts[] = {32, 16};

// Rounding toward zero while alive, when asked: the wrong model of --model-rounding.
class ModelRounding {
 public:
  explicit ModelRounding(bool toward_zero) : active_(toward_zero) {
    if (active_) std::fesetround(FE_TOWARDZERO);
  }
  ~ModelRounding() {
    if (active_) std::fesetround(FE_TONEAREST);
  }
  ModelRounding(const ModelRounding&) = delete;
  ModelRounding& operator=(const ModelRounding&) = delete;

 private:
  bool active_;
};

// A configuration with the given array, multiplying bf16 and f16 at `macs` MACs per PE per
// cycle, whose buffers deliver one f32 array edge per cycle (so a row of 16-bit inputs longer
// than that takes several).
target::TargetDesc array_target(ArraySize s, uint32_t macs) {
  target::TargetDesc t;
  t.name = "regress " + std::to_string(s.rows) + "x" + std::to_string(s.cols);
  t.source_file = "(s2sim regress)";
  t.clock_mhz = 1000;
  t.pe_array.rows = s.rows;
  t.pe_array.cols = s.cols;
  t.pe_array.datatypes = {{isa::DType::F32, 1}, {isa::DType::BF16, macs}, {isa::DType::F16, macs}};
  const uint32_t edge = 4 * std::max(s.rows, s.cols);
  for (target::SramBufferDesc* b :
       {&t.sram.input, &t.sram.weight, &t.sram.accumulator, &t.sram.output})
    *b = {uint64_t{edge} * 1024, 1, edge};
  return t;
}

// One dimension of a tile: at, just below and just above the array's edge, 1, a multiple, or
// anything up to three edges.
uint32_t dimension(OperandMix& rng, uint32_t edge) {
  switch (rng.below(7)) {
    case 0:
      return 1;
    case 1:
      return edge > 1 ? edge - 1 : 1;
    case 2:
      return edge;
    case 3:
      return edge + 1;
    case 4:
      return 2 * edge + 1;
    default:
      return 1 + static_cast<uint32_t>(rng.below(3 * uint64_t{edge}));
  }
}

std::string repro(uint64_t seed, uint64_t tile, const char* unit) {
  return "reproduce: s2sim regress --unit " + std::string(unit) + " --seed " +
         std::to_string(seed) + " --tile " + std::to_string(tile);
}

float datapath_value(uint32_t word) {
  return numerics::load(f32_from_bits(word));
}

// A PPU pass's stream types, "bf16 f32 f16 f32 -> f16 f32" (in0..in3 -> out0 out1).
std::string types_text(const functional::LanePass& pass) {
  std::string text;
  for (isa::DType t : pass.in_type)
    text += std::string(isa::dtype_name(t)) + " ";
  text += "->";
  for (isa::DType t : pass.out_type)
    text += " " + std::string(isa::dtype_name(t));
  return text;
}

// A multiplicand word of `mode` from the operand stream: an f32 pattern as drawn; for bf16 and
// f16 the drawn value rounded to the format, or (Specials profile, half the time) an arbitrary
// 16-bit pattern (NaN payloads, subnormals), with arbitrary upper 16 bits the RTL must ignore.
uint32_t multiplicand(OperandMix& rng, OperandProfile profile, isa::DType mode) {
  const uint32_t v = rng.next();
  if (mode == isa::DType::F32) return v;
  uint32_t half = 0;
  if (profile == OperandProfile::Specials && (v & 1u) != 0)
    half = (v >> 8) & 0xFFFFu;
  else
    half = numerics::bits16_from_f32(mode, datapath_value(v));
  return (rng.next() & 0xFFFF0000u) | half;
}

// The GEMM as s2::rtl::run_gemm runs it (column blocks, K blocks, row blocks) with the PPU
// epilogue following the array's drain, as the hardware streams (timing/pe_array_model.h,
// "streamed"; pe_array.sv's drain port, ppu.sv's in_valid / in_n): the last K block's passes
// drain their output rows, each ceil(cols / width) beats, into one epilogue pass of m x n
// elements on `ppu` (no stages), clocked in step with the array and then alone until it is done.
struct StreamedGemm {
  std::vector<s2::rtl::PassRecord> passes;
  std::vector<uint32_t> drained;  // the rows in the order they left the array
  std::vector<size_t> origin;     // the index in c of each drained element
  uint64_t tail = 0;              // cycles the PPU ran after the array's last pass
};

StreamedGemm streamed_gemm(s2::rtl::RtlPeArray& array, s2::rtl::RtlPpu& ppu, uint32_t m, uint32_t n,
                           uint32_t kd, const uint32_t* a, const uint32_t* b, uint32_t* c,
                           isa::DType mode, uint32_t width, uint32_t latency) {
  StreamedGemm g;
  const size_t total = size_t{m} * n;
  g.drained.assign(total, 0);
  g.origin.reserve(total);
  std::vector<uint32_t> out(total);
  s2::rtl::PpuPass pass;
  pass.op = s2::rtl::PpuRtlOp::Epilogue;
  pass.elements = total;
  pass.width = width;
  pass.latency = latency;
  const std::unique_ptr<s2::rtl::RtlPpuStream> epilogue =
      ppu.open_stream(pass, g.drained.data(), nullptr, nullptr, nullptr, out.data(), nullptr);
  s2::rtl::RowBeats beats(width);
  bool done = false;
  uint32_t row_n = 0, row_m0 = 0, row_n0 = 0, row_i = 0;  // the draining pass's rows
  const auto cycle = [&](bool valid, const uint32_t* row) {
    if (valid) {
      S2_CHECK(row_n > 0 && g.origin.size() + row_n <= total,
               "regress: the PE array drained a row no pass of the epilogue drains");
      for (uint32_t j = 0; j < row_n; ++j) {
        g.drained[g.origin.size()] = row[j];
        g.origin.push_back(size_t{row_m0 + row_i} * n + row_n0 + j);
      }
      ++row_i;
      beats.push_row(row_n);
    }
    beats.offer(*epilogue);
    done = epilogue->tick();
  };
  const uint32_t lm = array.max_m(), lk = array.max_k(mode);
  for (uint32_t n0 = 0; n0 < n; n0 += array.cols())
    for (uint32_t k0 = 0; k0 < kd; k0 += lk)
      for (uint32_t m0 = 0; m0 < m; m0 += lm) {
        const s2::rtl::PePass p{std::min(lm, m - m0), std::min(array.cols(), n - n0),
                                std::min(lk, kd - k0), mode};
        const bool drains = k0 + lk >= kd;
        row_n = drains ? p.n : 0;
        row_m0 = m0;
        row_n0 = n0;
        row_i = 0;
        const uint64_t cycles =
            array.run_drained_pass(p, drains, a + size_t{m0} * kd + k0, kd, b + size_t{k0} * n + n0,
                                   n, c + size_t{m0} * n + n0, n, cycle);
        g.passes.push_back({p, cycles});
      }
  const uint64_t bound = latency + total + 64;  // a watchdog, not the count
  while (!done) {
    cycle(false, nullptr);
    S2_CHECK(++g.tail <= bound, "regress: the streamed epilogue did not finish within " +
                                    std::to_string(bound) + " cycles after the array");
  }
  return g;
}

class PeRegression {
 public:
  PeRegression(const RegressOptions& o, std::ostream& out, RegressSummary& s)
      : o_(o), out_(out), s_(s) {
    for (ArraySize size : kArraySizes) {
      arrays_.push_back(s2::rtl::make_rtl_pe_array(size.rows, size.cols));
      const target::TargetDesc target = array_target(size, arrays_.back()->macs());
      arrays_.back()->set_input_bytes_per_cycle(uint64_t{target.sram.input.banks} *
                                                target.sram.input.bank_width_bytes);
      std::vector<std::unique_ptr<timing::PeArrayModel>> per_mode;
      for (isa::DType mode : kPeModes)
        per_mode.push_back(timing::make_pe_array_model(target, mode));
      models_.push_back(std::move(per_mode));
    }
  }

  // Tile t: array t % 3, multiply mode (t / 3) % 3, operand profile (t / 9) % 4.
  void run_tile(uint64_t tile) {
    const size_t which = tile % arrays_.size();
    s2::rtl::RtlPeArray& array = *arrays_[which];
    const size_t mode_index = (tile / arrays_.size()) % std::size(kPeModes);
    const isa::DType mode = kPeModes[mode_index];
    const auto profile = static_cast<OperandProfile>((tile / arrays_.size() / std::size(kPeModes)) %
                                                     kOperandProfiles);
    const timing::PeArrayModel& model = *models_[which][mode_index];
    OperandMix rng(tile_seed(o_.seed, tile), profile);
    const uint32_t m = dimension(rng, array.rows());  // streamed rows: any count
    const uint32_t n = dimension(rng, array.cols());
    const uint32_t kd = dimension(rng, array.max_k(mode));
    std::vector<uint32_t> a(size_t{m} * kd), b(size_t{kd} * n), c(size_t{m} * n);
    for (uint32_t& v : a)
      v = multiplicand(rng, profile, mode);
    for (uint32_t& v : b)
      v = multiplicand(rng, profile, mode);
    for (uint32_t& v : c)
      v = rng.next();

    // The model: the functional PE GEMM on datapath values.
    std::vector<float> fa(a.size()), fb(b.size()), fc(c.size());
    for (size_t i = 0; i < a.size(); ++i)
      fa[i] = datapath_value(s2::rtl::reference_operand(a[i], mode));
    for (size_t i = 0; i < b.size(); ++i)
      fb[i] = datapath_value(s2::rtl::reference_operand(b[i], mode));
    for (size_t i = 0; i < c.size(); ++i)
      fc[i] = datapath_value(c[i]);
    {
      ModelRounding rounding(o_.model_round_toward_zero);
      numerics::KTiledGemm(array.rows())
          .accumulate(m, n, kd, fa.data(), kd, fb.data(), n, fc.data(), n);
    }
    // Every other 36 tiles (each array, mode and profile once) the epilogue follows the drain.
    const bool streamed = (tile / 36) % 2 == 1;
    const auto width = static_cast<uint32_t>(1 + rng.below(ppu_->lanes()));
    const auto latency = static_cast<uint32_t>(1 + rng.below(16));
    StreamedGemm g;
    if (streamed)
      g = streamed_gemm(array, *ppu_, m, n, kd, a.data(), b.data(), c.data(), mode, width, latency);
    else
      g.passes =
          s2::rtl::run_gemm(array, m, n, kd, a.data(), kd, b.data(), n, c.data(), n, 0, mode);
    const std::vector<s2::rtl::PassRecord>& passes = g.passes;

    ++s_.tiles;
    const std::string what = "pe_array " + std::to_string(array.rows()) + "x" +
                             std::to_string(array.cols()) + " tile " + std::to_string(tile) + " (" +
                             std::string(isa::dtype_name(mode)) + ", " + std::to_string(m) + "x" +
                             std::to_string(n) + "x" + std::to_string(kd) + " M x N x K, " +
                             profile_name(profile) + ")";
    std::string mismatch;
    for (size_t p = 0; p < passes.size(); ++p) {
      const s2::rtl::PassRecord& r = passes[p];
      const uint64_t want = model.pass_cycles({r.pass.m, r.pass.n, r.pass.k});
      ++s_.passes;
      s_.cycles += r.cycles;
      if (r.cycles != want && mismatch.empty())
        mismatch = "pass " + std::to_string(p) + " (" + std::to_string(r.pass.m) + "x" +
                   std::to_string(r.pass.n) + "x" + std::to_string(r.pass.k) + "): RTL " +
                   std::to_string(r.cycles) + " cycles, model " + std::to_string(want);
    }
    s_.elements += c.size();
    for (size_t e = 0; e < c.size() && mismatch.empty(); ++e) {
      const uint32_t want = f32_bits(numerics::store(fc[e]));
      if (c[e] == want) continue;
      // The element's last write: the last K block's pass of its column and row blocks
      // (pe_array.sv's edge count: b cycles per input row, m chains).
      const size_t i = e / n, j = e % n;
      const uint32_t k_max = array.max_k(mode);
      const uint32_t last_k = kd - (kd - 1) / k_max * k_max;
      const uint64_t bytes = uint64_t{last_k} * isa::dtype_bytes(mode);
      const uint64_t beats =
          (bytes + array.input_bytes_per_cycle() - 1) / array.input_bytes_per_cycle();
      const size_t il = i % array.max_m(), jl = j % array.cols();
      const uint64_t edge =
          last_k + (il + 1) * beats + (array.rows() - 1) + jl + 1 + array.chains(mode);
      mismatch = "c[" + std::to_string(i) + "][" + std::to_string(j) + "] (written at cycle " +
                 std::to_string(edge) + " of its last pass, K_t = " + std::to_string(last_k) +
                 "): RTL " + s2::hex32(c[e]) + ", model " + s2::hex32(want);
    }
    if (streamed && mismatch.empty()) {
      // The drained rows are the final results, and the tile ends when the model says.
      for (size_t e = 0; e < g.origin.size() && mismatch.empty(); ++e)
        if (g.drained[e] != c[g.origin[e]])
          mismatch = "drained element " + std::to_string(e) + " (c[" +
                     std::to_string(g.origin[e] / n) + "][" + std::to_string(g.origin[e] % n) +
                     "]): " + s2::hex32(g.drained[e]) + ", the accumulator holds " +
                     s2::hex32(c[g.origin[e]]);
      if (mismatch.empty() && g.origin.size() != c.size())
        mismatch =
            std::to_string(g.origin.size()) + " elements drained of " + std::to_string(c.size());
      uint64_t rtl = g.tail;
      for (const s2::rtl::PassRecord& r : passes)
        rtl += r.cycles;
      const uint64_t want =
          model.streamed_tile_cycles({m, n, kd}, static_cast<double>(width), latency);
      s_.cycles += g.tail;
      if (mismatch.empty() && rtl != want)
        mismatch = "streamed epilogue (" + std::to_string(width) + " elements per beat, latency " +
                   std::to_string(latency) + "): RTL " + std::to_string(rtl) + " cycles, model " +
                   std::to_string(want);
    }
    if (!mismatch.empty()) report(what + ": " + mismatch + "; " + repro(o_.seed, tile, "pe_array"));
  }

 private:
  void report(const std::string& text) {
    if (s_.mismatches++ < o_.max_reports) out_ << "MISMATCH " << text << "\n";
  }
  const RegressOptions& o_;
  std::ostream& out_;
  RegressSummary& s_;
  std::vector<std::unique_ptr<s2::rtl::RtlPeArray>> arrays_;
  std::unique_ptr<s2::rtl::RtlPpu> ppu_ = s2::rtl::make_rtl_ppu(32);  // the streamed epilogue
  // Per array, one model per multiply mode (kPeModes).
  std::vector<std::vector<std::unique_ptr<timing::PeArrayModel>>> models_;
};

constexpr functional::LaneOp kLaneOps[] = {
    functional::LaneOp::Add,     functional::LaneOp::Sub,      functional::LaneOp::Mul,
    functional::LaneOp::Max,     functional::LaneOp::Min,      functional::LaneOp::Relu,
    functional::LaneOp::ReluBwd, functional::LaneOp::Axpby,    functional::LaneOp::ScaleShift,
    functional::LaneOp::Sgd,     functional::LaneOp::Epilogue, functional::LaneOp::Cast};

// The element types a PPU stream can have in memory.
constexpr isa::DType kStreamTypes[] = {isa::DType::F32, isa::DType::BF16, isa::DType::F16};

class PpuRegression {
 public:
  PpuRegression(const RegressOptions& o, std::ostream& out, RegressSummary& s)
      : o_(o), out_(out), s_(s) {
    for (uint32_t lanes : kLaneCounts)
      ppus_.push_back(s2::rtl::make_rtl_ppu(lanes));
  }

  void run_tile(uint64_t tile) {
    s2::rtl::RtlPpu& ppu = *ppus_[tile % ppus_.size()];
    const auto profile = static_cast<OperandProfile>((tile / ppus_.size()) % kOperandProfiles);
    OperandMix rng(tile_seed(o_.seed, tile) ^ 0x5050u, profile);
    functional::LanePass pass;
    pass.op = kLaneOps[rng.below(std::size(kLaneOps))];
    const uint32_t lanes = ppu.lanes();
    pass.elements = rng.below(4) == 0 ? 1 + rng.below(2000) : dimension(rng, lanes);
    const uint32_t widths[] = {lanes, std::max(1u, lanes / 2), std::max(1u, lanes / 4)};
    const uint32_t width = widths[rng.below(3)];
    const auto latency = static_cast<uint32_t>(1 + rng.below(16));
    OperandMix scalars(tile_seed(o_.seed, tile) ^ 0xA5A5u, OperandProfile::Ordinary);
    auto scalar = [&](uint64_t zero_in) {
      return rng.below(zero_in) == 0 ? 0u : (rng.below(8) == 0 ? rng.next() : scalars.next());
    };
    const uint32_t alpha = scalar(8), beta = scalar(8), lr = scalar(16), momentum = scalar(3),
                   wd = scalar(3);
    pass.alpha = datapath_value(alpha);
    pass.beta = datapath_value(beta);
    pass.sgd = {datapath_value(lr), datapath_value(momentum), datapath_value(wd)};
    pass.stages = {rng.below(2) == 0, rng.below(2) == 0,
                   rng.below(2) == 0 ? isa::Activation::Relu : isa::Activation::None,
                   rng.below(2) == 0};

    // Half the passes in f32 throughout; the others give each stream a random type, a 16-bit
    // input being the low half of its word (the rounded drawn value, or in the Specials
    // profile half the time any pattern) under garbage the load must not read.
    if (rng.below(2) == 0) {
      for (isa::DType& t : pass.in_type)
        t = kStreamTypes[rng.below(3)];
      for (isa::DType& t : pass.out_type)
        t = kStreamTypes[rng.below(3)];
    }
    const size_t e = pass.elements;
    std::vector<uint32_t> in[4];
    std::vector<float> fin[4];
    for (size_t k = 0; k < 4; ++k) {
      in[k].resize(e);
      fin[k].resize(e);
      const isa::DType type = pass.in_type[k];
      for (size_t i = 0; i < e; ++i) {
        if (type == isa::DType::F32) {
          in[k][i] = rng.next();
          fin[k][i] = datapath_value(in[k][i]);
        } else {
          in[k][i] = multiplicand(rng, profile, type);
          fin[k][i] = widened(type, in[k][i] & 0xFFFFu);
        }
      }
    }
    const bool velocity = functional::writes_out1(pass);  // or the epilogue's second y
    std::vector<float> m0(e), m1(e);
    {
      ModelRounding rounding(o_.model_round_toward_zero);
      functional::ModelPpuLanes().run(pass, fin[0].data(), fin[1].data(), fin[2].data(),
                                      fin[3].data(), m0.data(), velocity ? m1.data() : nullptr);
    }
    s2::rtl::PpuPass p;
    p.op = *to_rtl_op(pass.op);
    p.elements = e;
    p.width = width;
    p.latency = latency;
    p.alpha = alpha, p.beta = beta, p.lr = lr, p.momentum = momentum, p.weight_decay = wd;
    p.bias = pass.stages.bias, p.residual = pass.stages.residual,
    p.relu = pass.stages.act == isa::Activation::Relu, p.gate = pass.stages.gate;
    for (size_t k = 0; k < 4; ++k)
      p.in_type[k] = *to_rtl_type(pass.in_type[k]);
    for (size_t k = 0; k < 2; ++k)
      p.out_type[k] = *to_rtl_type(pass.out_type[k]);
    std::vector<uint32_t> r0(e), r1(e);
    const uint64_t cycles = ppu.run_pass(p, in[0].data(), in[1].data(), in[2].data(), in[3].data(),
                                         r0.data(), r1.data());
    // The timing model's cost of the pass on a PPU of these lanes at this width and latency.
    target::TargetDesc t;
    t.name = "regress ppu";
    t.ppu.lanes = lanes;
    t.sram.output = {uint64_t{4} * lanes * 1024, 1, 4 * lanes};  // a port for every lane's result
    for (target::PpuOpCost& cost : t.ppu.ops)
      cost = {static_cast<double>(width) / lanes, latency};
    const uint64_t want_cycles = timing::ppu_pass_cycles(t, target::PpuOp::Eltwise, e);

    ++s_.tiles;
    ++s_.passes;
    s_.cycles += cycles;
    s_.elements += e * (velocity ? 2 : 1);
    const std::string what = "ppu " + std::to_string(lanes) + " lanes tile " +
                             std::to_string(tile) + " (" + s2::rtl::ppu_rtl_op_name(p.op) + ", " +
                             std::to_string(e) + " elements, width " + std::to_string(width) +
                             ", latency " + std::to_string(latency) + ", " + profile_name(profile) +
                             ", types " + types_text(pass) + ")";
    std::string mismatch;
    if (cycles != want_cycles)
      mismatch = "RTL " + std::to_string(cycles) + " cycles, model " + std::to_string(want_cycles);
    for (size_t i = 0; i < e && mismatch.empty(); ++i) {
      const uint32_t w0 = stored_word(pass.out_type[0], m0[i]);
      const uint32_t w1 = stored_word(pass.out_type[1], m1[i]);
      const char* which = r0[i] != w0 ? "out0" : (velocity && r1[i] != w1 ? "out1" : nullptr);
      if (which == nullptr) continue;
      const bool first = which[3] == '0';
      mismatch = std::string(which) + "[" + std::to_string(i) + "] (beat " +
                 std::to_string(i / width) + ", out at cycle " +
                 std::to_string(i / width + 1 + latency) + "): RTL " +
                 s2::hex32(first ? r0[i] : r1[i]) + ", model " + s2::hex32(first ? w0 : w1) +
                 "; inputs " + s2::hex32(in[0][i]) + " " + s2::hex32(in[1][i]) + " " +
                 s2::hex32(in[2][i]) + " " + s2::hex32(in[3][i]);
    }
    if (!mismatch.empty()) {
      if (s_.mismatches++ < o_.max_reports)
        out_ << "MISMATCH " << what << ": " << mismatch << "; " << repro(o_.seed, tile, "ppu")
             << "\n";
    }
  }

 private:
  const RegressOptions& o_;
  std::ostream& out_;
  RegressSummary& s_;
  std::vector<std::unique_ptr<s2::rtl::RtlPpu>> ppus_;
};

void print_summary(std::ostream& out, const char* unit, const RegressSummary& s) {
  out << "  " << unit << ": " << s.tiles << " tiles, " << s.passes << " passes, " << s.cycles
      << " RTL cycles and " << s.elements << " output elements compared: "
      << (s.mismatches == 0 ? std::string("no mismatch")
                            : std::to_string(s.mismatches) + " tiles mismatch")
      << "\n";
}

template <typename Regression>
void run_unit(const RegressOptions& o, std::ostream& out, RegressSummary& s) {
  Regression r(o, out, s);
  if (o.tile) {
    r.run_tile(*o.tile);
    return;
  }
  for (uint64_t t = 0; t < o.count; ++t)
    r.run_tile(t);
}

}  // namespace

RegressResult run_regress(const RegressOptions& o, std::ostream& out) {
  RegressResult result;
  out << "s2sim regress: seed " << o.seed << ", "
      << (o.tile ? "tile " + std::to_string(*o.tile) : std::to_string(o.count) + " tiles per unit")
      << (o.model_round_toward_zero ? ", model rounding toward zero (deliberately wrong)" : "")
      << "\n";
  if (o.pe_array) run_unit<PeRegression>(o, out, result.pe_array);
  if (o.ppu) run_unit<PpuRegression>(o, out, result.ppu);
  out << "summary\n";
  if (o.pe_array)
    print_summary(out, "pe_array (32x32, 16x16, 8x4; f32, bf16, f16)", result.pe_array);
  if (o.ppu) print_summary(out, "ppu (32, 16 lanes; f32, bf16, f16 streams)", result.ppu);
  out << (result.passed() ? "PASS" : "FAIL") << "\n";
  return result;
}

}  // namespace s2::sim::rtl
