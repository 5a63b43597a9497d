// The roofline holds for strided operands (issue 18 point 6): no instruction finishes faster
// than max(MACs / peak MACs, operand bytes / peak DRAM bandwidth), whatever its descriptors'
// strides. Random single-instruction programs (gemm, bmm, eltwise, copy) read operands that
// are dense, transposed, slices of a larger buffer, broadcast along an axis, overlapping
// ({s, s+1}: many elements share a row of DRAM but the span is large) or sparse, and each is
// simulated on the three shipped configurations. A violation names the seed and the program.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "isa/asm/assembler.h"
#include "isa/container/executable.h"
#include "simulator/dram/load_target.h"
#include "simulator/report/physics_check.h"
#include "simulator/top/top.h"

namespace s2::sim {
namespace {

constexpr uint64_t kPoolElements = uint64_t{1} << 21;  // 8 MiB of f32 the inputs view
constexpr uint64_t kOutAddress = kPoolElements * 4;    // outputs, dense, after the pool
constexpr uint64_t kOutElements = uint64_t{1} << 20;

// One operand view: shape, strides in elements, and an address inside the pool.
struct View {
  std::vector<uint64_t> shape;
  std::vector<uint64_t> strides;
  uint64_t address = 0;

  uint64_t span_elements() const {
    uint64_t last = 0;
    for (std::size_t k = 0; k < shape.size(); ++k)
      last += (shape[k] - 1) * strides[k];
    return last + 1;
  }
  std::string text() const {
    std::string dims, steps;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      dims += (k ? "," : "") + std::to_string(shape[k]);
      steps += (k ? "," : "") + std::to_string(strides[k]);
    }
    return "f32[" + dims + "]{" + steps + "}@" + std::to_string(address);
  }
};

std::vector<uint64_t> dense_strides(const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> strides(shape.size(), 1);
  for (std::size_t k = shape.size() - 1; k-- > 0;)
    strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  uint64_t pick(uint64_t low, uint64_t high) {
    return std::uniform_int_distribution<uint64_t>(low, high)(rng_);
  }

  // An input of `shape` in one of the stride patterns, placed where its span fits the pool.
  View input(const std::vector<uint64_t>& shape) {
    View v{shape, dense_strides(shape), 0};
    const std::size_t last = shape.size() - 1;
    switch (pick(0, 5)) {
      case 0:  // dense
        break;
      case 1:  // the two last axes transposed
        if (shape.size() >= 2) v.strides = transposed(shape);
        break;
      case 2:  // a slice of a wider buffer: rows padded
        for (std::size_t k = 0; k < last; ++k)
          v.strides[k] *= 1 + pick(0, 3);
        if (last > 0) v.strides[last - 1] += pick(1, 200);
        break;
      case 3:  // broadcast along one axis
        v.strides[pick(0, last)] = 0;
        break;
      case 4:  // overlapping axes: {s, s + 1}
        for (std::size_t k = 0; k < shape.size(); ++k)
          v.strides[k] = pick(1, 1000) + k;
        break;
      default:  // sparse
        for (uint64_t& stride : v.strides)
          stride = pick(1, 5000);
    }
    // Keep the span inside the pool: shrink strides until it fits.
    while (v.span_elements() > kPoolElements)
      for (uint64_t& stride : v.strides)
        stride /= 2;
    v.address = 4 * pick(0, kPoolElements - v.span_elements());
    return v;
  }

  View output(const std::vector<uint64_t>& shape) {
    View v{shape, dense_strides(shape), kOutAddress};
    return v;
  }

 private:
  static std::vector<uint64_t> transposed(const std::vector<uint64_t>& shape) {
    // Row-major strides of the shape with its two last axes swapped, read back in the
    // original axis order.
    std::vector<uint64_t> swapped = shape;
    std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
    std::vector<uint64_t> strides = dense_strides(swapped);
    std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
    return strides;
  }

  std::mt19937 rng_;
};

// One program of a single instruction over strided inputs.
std::string random_program(uint32_t seed) {
  Generator g(seed);
  const uint64_t m = g.pick(1, 200), k = g.pick(1, 200), n = g.pick(1, 200);
  std::string inst;
  switch (g.pick(0, 3)) {
    case 0:
      inst = "gemm a=" + g.input({m, k}).text() + " b=" + g.input({k, n}).text() +
             " y=" + g.output({m, n}).text();
      break;
    case 1: {
      const uint64_t batch = g.pick(1, 8);
      inst = "bmm a=" + g.input({batch, m, k}).text() + " b=" + g.input({batch, k, n}).text() +
             " y=" + g.output({batch, m, n}).text();
      break;
    }
    case 2:
      inst = "eltwise a=" + g.input({m, k, 8}).text() + " b=" + g.input({m, k, 8}).text() +
             " y=" + g.output({m, k, 8}).text() + " op=add";
      break;
    default:
      inst = "copy src=" + g.input({m, n}).text() + " dst=" + g.output({m, n}).text();
  }
  return ".target s2train_base\n.dram " + std::to_string(kOutAddress + kOutElements * 4) +
         "\n.plan planner=asm arena=0x0+0x0 lower_bound=0x0 alignment=64\n"
         ".tensor pool scratch f32[" +
         std::to_string(kPoolElements) + "] @0x0 life=0..1 data=fill(0.5)\n" +
         ".tensor out activation f32[" + std::to_string(kOutElements) + "] @" +
         std::to_string(kOutAddress) + " life=0..1\n" + "   0: " + inst + "\n   1: end deps=0\n";
}

class RooflineProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(RooflineProperty, NoStridedInstructionBeatsItsBound) {
  const target::TargetDesc target =
      target::load_target(std::string(S2_SOURCE_DIR) + "/configs/" + GetParam() + ".yaml");
  constexpr uint32_t kPrograms = 60;
  for (uint32_t seed = 1; seed <= kPrograms; ++seed) {
    const std::string text = random_program(seed);
    isa::Executable exe = isa::assemble(text, "roofline.s2asm");
    exe.target = target.name;
    const report::RunResult result = top::simulate(exe, target, top::SimOptions{});
    ASSERT_TRUE(result.deadlock.empty()) << text;
    for (const report::InstructionRecord& r : result.instructions)
      EXPECT_GE(r.cycles(), r.roofline_cycles) << "seed " << seed << "\n" << text;
    EXPECT_TRUE(report::roofline_violations(result).empty()) << "seed " << seed << "\n" << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, RooflineProperty,
                         ::testing::Values("s2train_base", "s2train_small", "s2train_large"));

}  // namespace
}  // namespace s2::sim
