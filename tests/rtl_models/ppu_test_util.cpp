#include "tests/rtl_models/ppu_test_util.h"

#include <cstdio>
#include <sstream>

#include "isa/common/float_bits.h"
#include "isa/numerics/lane_ops.h"
#include "isa/numerics/low_precision.h"

namespace s2::rtl::test {

namespace nm = s2::numerics;

std::vector<uint32_t> special_values() {
  return {
      0x00000000u, 0x80000000u,  // ±0
      0x00000001u, 0x80000001u,  // ±smallest subnormal
      0x007FFFFFu, 0x807FFFFFu,  // ±largest subnormal
      0x00800000u, 0x80800000u,  // ±smallest normal
      0x00800001u, 0x3F7FFFFFu,  // just above 2^-126; just below 1 (FTZ round-up pair)
      0x3F7FFFFEu, 0x3F800000u,  // rounds to +0 with 2^-126; 1
      0xBF800000u, 0x3F800001u,  // -1; 1 + ulp
      0x33800000u, 0x34000000u,  // 2^-24 (1 + it is a tie), 2^-23
      0x4B000001u, 0x3F000000u,  // 2^23 + 1; 0.5 (ties in sums)
      0x7F7FFFFFu, 0xFF7FFFFFu,  // ±largest finite
      0x7F800000u, 0xFF800000u,  // ±Inf
      0x7FC00000u, 0xFFC00001u,  // quiet NaNs
      0x7F800001u, 0xFFBFFFFFu,  // signalling NaNs
      0x1F800000u, 0x60000000u,  // 2^-64 (squares underflow), 2^65 (squares overflow)
  };
}

ValueGen::ValueGen(uint64_t seed) : rng_(seed), specials_(special_values()) {}

uint32_t ValueGen::next() {
  const auto r = static_cast<uint32_t>(rng_());
  const auto bits = static_cast<uint32_t>(rng_() >> 32);
  const uint32_t sign = bits & 0x80000000u;
  const uint32_t frac = bits & 0x007FFFFFu;
  switch (r % 8) {
    case 0:
      return specials_[(r >> 3) % specials_.size()];
    case 1:
      return bits;  // anything
    case 2:
      return sign | ((1u + (r >> 3) % 30u) << 23) | frac;  // near the subnormal edge
    case 3:
      return sign | ((225u + (r >> 3) % 30u) << 23) | frac;  // near overflow
    case 4:
      return sign | ((r >> 3) % 4u) << 23 | frac;  // subnormal, tiny normal
    default:
      return sign | ((115u + (r >> 3) % 25u) << 23) | frac;  // around 1
  }
}

PassInputs random_inputs(uint64_t seed, uint64_t n) {
  ValueGen gen(seed);
  PassInputs p;
  for (auto& v : p.in)
    v.reserve(n);
  for (uint64_t i = 0; i < n; ++i)
    for (auto& v : p.in)
      v.push_back(gen.next());
  return p;
}

PassInputs special_inputs() {
  const std::vector<uint32_t> s = special_values();
  PassInputs p;
  for (size_t i = 0; i < s.size(); ++i) {
    for (size_t j = 0; j < s.size(); ++j) {
      p.in[0].push_back(s[i]);
      p.in[1].push_back(s[j]);
      p.in[2].push_back(s[(i + j) % s.size()]);
      p.in[3].push_back(s[(i + 2 * j + 1) % s.size()]);
    }
  }
  return p;
}

namespace {

float ld(uint32_t x) {
  return nm::load(f32_from_bits(x));
}
// A stream element as the PPU loads it: a 16-bit element is the word's low half, widened.
float load_as(PpuRtlType type, uint32_t word) {
  const auto half = static_cast<uint16_t>(word & 0xFFFFu);
  switch (type) {
    case PpuRtlType::Bf16:
      return nm::bf16_to_f32(half);
    case PpuRtlType::F16:
      return nm::f16_to_f32(half);
    case PpuRtlType::F32:
      break;
  }
  return ld(word);
}

// A result as the PPU stores it: flushed, then rounded to a 16-bit type (upper half zero).
uint32_t store_as(PpuRtlType type, float f) {
  const float flushed = nm::store(f);
  switch (type) {
    case PpuRtlType::Bf16:
      return nm::bf16_from_f32(flushed);
    case PpuRtlType::F16:
      return nm::f16_from_f32(flushed);
    case PpuRtlType::F32:
      break;
  }
  return f32_bits(flushed);
}

}  // namespace

PassResult reference_pass(const PpuPass& p, const PassInputs& in) {
  const size_t n = in.in[0].size();
  PassResult r;
  r.out0.assign(n, kUnwritten);
  r.out1.assign(n, kUnwritten);
  r.cycles = expected_cycles(p);
  const float alpha = ld(p.alpha), beta = ld(p.beta);
  const nm::SgdParams sgd{ld(p.lr), ld(p.momentum), ld(p.weight_decay)};
  const nm::EpilogueStages stages{
      p.bias, p.residual, p.relu ? s2::isa::Activation::Relu : s2::isa::Activation::None, p.gate};
  for (size_t i = 0; i < n; ++i) {
    const float a = load_as(p.in_type[0], in.in[0][i]), b = load_as(p.in_type[1], in.in[1][i]);
    const float c = load_as(p.in_type[2], in.in[2][i]), d = load_as(p.in_type[3], in.in[3][i]);
    const auto st = [&](float f) { return store_as(p.out_type[0], f); };
    switch (p.op) {
      case PpuRtlOp::Add:
        r.out0[i] = st(nm::add(a, b));
        break;
      case PpuRtlOp::Sub:
        r.out0[i] = st(nm::sub(a, b));
        break;
      case PpuRtlOp::Mul:
        r.out0[i] = st(nm::mul(a, b));
        break;
      case PpuRtlOp::Max:
        r.out0[i] = st(nm::max(a, b));
        break;
      case PpuRtlOp::Min:
        r.out0[i] = st(nm::min(a, b));
        break;
      case PpuRtlOp::Relu:
        r.out0[i] = st(nm::relu(a));
        break;
      case PpuRtlOp::ReluBwd:
        r.out0[i] = st(nm::relu_bwd(a, b));
        break;
      case PpuRtlOp::Axpby:
        r.out0[i] = st(nm::axpby(a, b, alpha, beta));
        break;
      case PpuRtlOp::ScaleShift:
        r.out0[i] = st(nm::scale_shift(a, alpha, beta));
        break;
      case PpuRtlOp::Sgd: {
        float w = a;
        float v = c;
        nm::sgd_step(sgd, w, b, &v);
        r.out0[i] = st(w);
        if (sgd.momentum != 0.0f) r.out1[i] = store_as(p.out_type[1], v);
        break;
      }
      case PpuRtlOp::Epilogue: {
        const float y = nm::epilogue(stages, a, b, c, d);
        r.out0[i] = st(y);
        r.out1[i] = store_as(p.out_type[1], y);  // the same y in out1's own type
        break;
      }
      case PpuRtlOp::Cast:
        r.out0[i] = st(a);
        break;
    }
  }
  return r;
}

PassResult rtl_pass(RtlPpu& ppu, const PpuPass& p, const PassInputs& in) {
  const size_t n = in.in[0].size();
  PassResult r;
  r.out0.assign(n, kUnwritten);
  r.out1.assign(n, kUnwritten);
  r.cycles = ppu.run_pass(p, in.in[0].data(), in.in[1].data(), in.in[2].data(), in.in[3].data(),
                          r.out0.data(), r.out1.data());
  return r;
}

std::string describe(const PpuPass& p) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s E=%llu width=%u latency=%u alpha=%08X beta=%08X lr=%08X momentum=%08X "
                "wd=%08X stages=%s%s%s%s types in %s %s %s %s out %s %s",
                ppu_rtl_op_name(p.op), static_cast<unsigned long long>(p.elements), p.width,
                p.latency, p.alpha, p.beta, p.lr, p.momentum, p.weight_decay, p.bias ? "b" : "-",
                p.residual ? "r" : "-", p.relu ? "a" : "-", p.gate ? "g" : "-",
                ppu_rtl_type_name(p.in_type[0]), ppu_rtl_type_name(p.in_type[1]),
                ppu_rtl_type_name(p.in_type[2]), ppu_rtl_type_name(p.in_type[3]),
                ppu_rtl_type_name(p.out_type[0]), ppu_rtl_type_name(p.out_type[1]));
  return buf;
}

std::string first_mismatch(const PpuPass& p, const PassInputs& in, const PassResult& want,
                           const PassResult& got) {
  std::ostringstream msg;
  if (want.cycles != got.cycles)
    msg << describe(p) << ": cycles " << got.cycles << ", expected " << want.cycles << "\n";
  for (size_t i = 0; i < want.out0.size(); ++i) {
    if (want.out0[i] == got.out0[i] && want.out1[i] == got.out1[i]) continue;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "element %zu in=(%08X %08X %08X %08X): out0 %08X expected %08X, out1 %08X "
                  "expected %08X",
                  i, in.in[0][i], in.in[1][i], in.in[2][i], in.in[3][i], got.out0[i], want.out0[i],
                  got.out1[i], want.out1[i]);
    msg << describe(p) << ": " << buf;
    break;
  }
  return msg.str();
}

std::vector<PpuPass> op_variants() {
  std::vector<PpuPass> v;
  for (PpuRtlOp op : {PpuRtlOp::Add, PpuRtlOp::Sub, PpuRtlOp::Mul, PpuRtlOp::Max, PpuRtlOp::Min,
                      PpuRtlOp::Relu, PpuRtlOp::ReluBwd}) {
    PpuPass p;
    p.op = op;
    v.push_back(p);
  }
  // (alpha, beta): ordinary, zeros, subnormal (reads as 0), Inf, NaN, the FTZ round-up pair.
  const uint32_t scalar_pairs[][2] = {{0x3FC00000u, 0xBE800000u}, {0x00000000u, 0x3F800000u},
                                      {0x80000000u, 0x80000000u}, {0x00000001u, 0x40400000u},
                                      {0x7F800000u, 0x40000000u}, {0x3F800000u, 0x7FC00000u},
                                      {0x3F7FFFFFu, 0x00800000u}, {0x7F7FFFFFu, 0xFF7FFFFFu}};
  for (PpuRtlOp op : {PpuRtlOp::Axpby, PpuRtlOp::ScaleShift}) {
    for (const auto& s : scalar_pairs) {
      PpuPass p;
      p.op = op;
      p.alpha = s[0];
      p.beta = s[1];
      v.push_back(p);
    }
  }
  // lr, momentum, weight_decay: zero, -0, subnormal (zero after DAZ), ordinary, Inf, NaN.
  const uint32_t lrs[] = {0x3DCCCCCDu, 0x00000000u, 0x7F800000u};
  const uint32_t moms[] = {0x00000000u, 0x3F666666u, 0x00000010u, 0x7FC00000u};
  const uint32_t wds[] = {0x00000000u, 0x38D1B717u, 0x80000000u, 0x807FFFFFu, 0xFF800000u};
  for (uint32_t lr : lrs) {
    for (uint32_t m : moms) {
      for (uint32_t wd : wds) {
        PpuPass p;
        p.op = PpuRtlOp::Sgd;
        p.lr = lr;
        p.momentum = m;
        p.weight_decay = wd;
        v.push_back(p);
      }
    }
  }
  for (uint32_t s = 0; s < 16; ++s) {
    PpuPass p;
    p.op = PpuRtlOp::Epilogue;
    p.bias = (s & 1u) != 0;
    p.residual = (s & 2u) != 0;
    p.relu = (s & 4u) != 0;
    p.gate = (s & 8u) != 0;
    v.push_back(p);
  }
  return v;
}

}  // namespace s2::rtl::test
