#pragma once
// Shared by the PPU RTL tests and benchmark: operand generators (special values and seeded
// random bit patterns), the s2::numerics reference of a pass, and the per-op pass variants.
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rtl_models/ppu/ppu_rtl.h"

namespace s2::rtl::test {

// Written to every output element before a pass: an element the op does not write keeps it.
inline constexpr uint32_t kUnwritten = 0xDEADBEEFu;

struct PassInputs {
  std::array<std::vector<uint32_t>, 4> in;
  uint64_t size() const { return in[0].size(); }
};

struct PassResult {
  std::vector<uint32_t> out0, out1;
  uint64_t cycles = 0;
};

// ±0, ±smallest/largest subnormal, ±smallest normal, ±1, ±largest finite, ±Inf, quiet and
// signalling NaNs of both signs, rounding ties and the FTZ round-up pair of fp32.h.
std::vector<uint32_t> special_values();

// Seeded operand bit patterns: a mix of special values, exponents near 1, near the subnormal
// boundary, near overflow, and uniformly random patterns.
class ValueGen {
 public:
  explicit ValueGen(uint64_t seed);
  uint32_t next();

 private:
  std::mt19937_64 rng_;
  std::vector<uint32_t> specials_;
};

PassInputs random_inputs(uint64_t seed, uint64_t n);
// Every ordered pair of special values in (in0, in1); in2, in3 take the same list rotated.
PassInputs special_inputs();

// The reference: s2::numerics (lane_ops.h) on loaded inputs, each result through store().
PassResult reference_pass(const PpuPass& pass, const PassInputs& in);
// Runs the pass on the RTL with all four inputs and both outputs given.
PassResult rtl_pass(RtlPpu& ppu, const PpuPass& pass, const PassInputs& in);

// Empty if equal, else the first differing element with its operands.
std::string first_mismatch(const PpuPass& pass, const PassInputs& in, const PassResult& want,
                           const PassResult& got);

// The pass variants of every op: one each for the plain ops, scalar sets for Axpby and
// ScaleShift, every (lr, momentum, weight_decay) zero/non-zero/special mix for Sgd, all 16
// epilogue stage sets. Elements, width and latency are left for the caller.
std::vector<PpuPass> op_variants();
std::string describe(const PpuPass& pass);

inline uint64_t expected_cycles(const PpuPass& p) {
  return p.latency + (p.elements + p.width - 1) / p.width;
}

}  // namespace s2::rtl::test
