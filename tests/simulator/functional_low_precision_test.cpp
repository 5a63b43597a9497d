// bf16 and f16 operands through the functional kernels: a value is widened to f32 where it
// enters the datapath and rounded where it leaves (isa/numerics/low_precision.h), so every
// kernel on 16-bit operands must give the bits of the same kernel on the widened f32 values,
// rounded once to the output's type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/driver/backend.h"
#include "compiler/interp/interpreter.h"
#include "compiler/lower/stream_checker.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "isa/encoding/semantics.h"
#include "isa/numerics/amp.h"
#include "isa/numerics/low_precision.h"
#include "simulator/functional/dram_image.h"
#include "simulator/functional/execute.h"
#include "tests/simulator/functional_program.h"

namespace s2::sim::functional {
namespace {

using test::Program;

std::vector<float> random_values(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v)
    x = real(rng);
  return v;
}

std::vector<float> rounded(isa::DType dtype, std::vector<float> v) {
  for (float& x : v)
    x = numerics::round_to(dtype, x);
  return v;
}

// The widened result of the 16-bit program must equal the f32 program's result rounded to
// `out` (bit for bit: compared as f32 patterns, so NaN and -0 count).
void expect_rounded_equal(isa::DType out, const std::vector<float>& low,
                          const std::vector<float>& wide, const std::string& what) {
  ASSERT_EQ(low.size(), wide.size());
  for (size_t i = 0; i < low.size(); ++i)
    ASSERT_EQ(f32_bits(low[i]), f32_bits(numerics::round_to(out, wide[i])))
        << what << " element " << i << ": " << low[i] << " vs " << wide[i];
}

TEST(FunctionalLowPrecision, GemmWidensItsOperandsAndRoundsItsOutput) {
  const uint32_t m = 7, n = 45, k = 70;  // K spans three K-tiles of 32
  const auto va = random_values(m * k, 1), vb = random_values(k * n, 2),
             vbias = random_values(n, 3), vres = random_values(m * n, 4);
  for (isa::DType mode : {isa::DType::BF16, isa::DType::F16}) {
    for (isa::DType out : {mode, isa::DType::F32}) {
      const std::string what =
          std::string(isa::dtype_name(mode)) + " -> " + std::string(isa::dtype_name(out));
      Program low(isa::Opcode::Gemm);
      const auto y = low.zeros({m, n}, out);
      low.set(isa::Slot::A, low.typed({m, k}, mode, va))
          .set(isa::Slot::B, low.typed({k, n}, mode, vb))
          .set(isa::Slot::Bias, low.typed({n}, mode, vbias))
          .set(isa::Slot::Residual, low.typed({m, n}, out, vres))
          .set(isa::Slot::Y, y)
          .field(isa::Field::Act, static_cast<uint32_t>(isa::Activation::Gelu));
      ASSERT_TRUE(isa::check_instruction(low.inst()).empty()) << what;
      Program wide(isa::Opcode::Gemm);
      const auto yw = wide.zeros({m, n});
      wide.set(isa::Slot::A, wide.values({m, k}, rounded(mode, va)))
          .set(isa::Slot::B, wide.values({k, n}, rounded(mode, vb)))
          .set(isa::Slot::Bias, wide.values({n}, rounded(mode, vbias)))
          .set(isa::Slot::Residual, wide.values({m, n}, rounded(out, vres)))
          .set(isa::Slot::Y, yw)
          .field(isa::Field::Act, static_cast<uint32_t>(isa::Activation::Gelu));
      expect_rounded_equal(out, low.result(y), wide.result(yw), what);
    }
  }
}

TEST(FunctionalLowPrecision, ConvAndPpuKernelsReadAndWriteEveryFloatType) {
  const auto vx = random_values(2 * 3 * 6 * 6, 5), vw = random_values(4 * 3 * 3 * 3, 6);
  for (isa::DType t : {isa::DType::BF16, isa::DType::F16}) {
    Program low(isa::Opcode::Conv2d);
    const auto y = low.zeros({2, 4, 4, 4}, t);
    low.set(isa::Slot::X, low.typed({2, 3, 6, 6}, t, vx))
        .set(isa::Slot::W, low.typed({4, 3, 3, 3}, t, vw))
        .set(isa::Slot::Y, y);
    Program wide(isa::Opcode::Conv2d);
    const auto yw = wide.zeros({2, 4, 4, 4});
    wide.set(isa::Slot::X, wide.values({2, 3, 6, 6}, rounded(t, vx)))
        .set(isa::Slot::W, wide.values({4, 3, 3, 3}, rounded(t, vw)))
        .set(isa::Slot::Y, yw);
    expect_rounded_equal(t, low.result(y), wide.result(yw), "conv2d");

    // eltwise reads a bf16/f16 and an f32 operand and writes the 16-bit type.
    Program add(isa::Opcode::Eltwise);
    const auto sum = add.zeros({40}, t);
    const auto va = random_values(40, 7), vb = random_values(40, 8);
    add.set(isa::Slot::A, add.typed({40}, t, va))
        .set(isa::Slot::B, add.values({40}, vb))
        .set(isa::Slot::Y, sum)
        .field(isa::Field::Op, static_cast<uint32_t>(isa::EltwiseOp::Add));
    const std::vector<float> got = add.result(sum);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(f32_bits(got[i]),
                f32_bits(numerics::round_to(t, numerics::round_to(t, va[i]) + vb[i])))
          << i;
  }
}

TEST(FunctionalLowPrecision, CastRoundsOnceAndWidensExactly) {
  // Values around fp16's limits: overflow to infinity, subnormals kept, underflow to zero.
  const std::vector<float> v = {1.0f, 65519.0f, 65520.0f, -1e-5f, 3e-8f, 2.9e-8f, 0.1f, -0.0f};
  for (isa::DType to : {isa::DType::BF16, isa::DType::F16}) {
    Program down(isa::Opcode::Cast);
    const auto y = down.zeros({8}, to);
    down.set(isa::Slot::X, down.values({8}, v)).set(isa::Slot::Y, y);
    const std::vector<float> got = down.result(y);
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT_EQ(f32_bits(got[i]), f32_bits(numerics::round_to(to, v[i])))
          << isa::dtype_name(to) << " " << v[i];
    // Widening back to f32 is exact.
    Program up(isa::Opcode::Cast);
    const auto w = up.zeros({8});
    up.set(isa::Slot::X, up.typed({8}, to, v)).set(isa::Slot::Y, w);
    EXPECT_EQ(up.result(w), got);
  }
  const std::vector<float> f16 = rounded(isa::DType::F16, v);
  EXPECT_EQ(f16[2], INFINITY);
  EXPECT_EQ(f16[4], std::ldexp(1.0f, -24));  // 3e-8 > 2^-25: up to the smallest subnormal
  EXPECT_EQ(f16[5], 0.0f);                   // 2.9e-8 < 2^-25: down to zero
}

TEST(FunctionalLowPrecision, FillAndCopyOf16BitTypes) {
  for (isa::DType t : {isa::DType::BF16, isa::DType::F16}) {
    Program fill(isa::Opcode::Fill);
    const auto d = fill.zeros({5}, t);
    fill.set(isa::Slot::Dst, d);
    fill.inst().set_f32(isa::Field::Value, 0.1f);
    for (float got : fill.result(d))
      EXPECT_EQ(got, numerics::round_to(t, 0.1f)) << isa::dtype_name(t);
    Program copy(isa::Opcode::Copy);
    const auto src = copy.typed({6}, t, random_values(6, 9));
    const auto dst = copy.zeros({2, 3}, t);
    copy.set(isa::Slot::Src, src).set(isa::Slot::Dst, dst);
    const DramImage image = copy.run_ours();
    EXPECT_EQ(image.read_raw(dst), image.read_raw(src));
  }
}

// The optimizers keep the f32 master weight and write the low-precision copy the PE array
// multiplies in the same instruction: the updated weight, rounded once.
TEST(FunctionalLowPrecision, UpdatesWriteTheWeightCopy) {
  const auto w = random_values(33, 10), g = random_values(33, 11, 100.0f);
  for (isa::DType t : {isa::DType::BF16, isa::DType::F16}) {
    for (isa::Opcode op : {isa::Opcode::Sgd, isa::Opcode::AdamW}) {
      Program p(op);
      const auto weight = p.values({33}, w);
      const auto copy = p.zeros({33}, t);
      p.set(isa::Slot::Weight, weight).set(isa::Slot::Grad, p.typed({33}, t, g));
      p.set(isa::Slot::WeightCopy, copy);
      if (op == isa::Opcode::AdamW)
        p.set(isa::Slot::ExpAvg, p.zeros({33}))
            .set(isa::Slot::ExpAvgSq, p.zeros({33}))
            .set(isa::Slot::Step, p.zeros({1}, isa::DType::I32));
      p.inst().set_f32(isa::Field::Lr, 0.01f);
      ASSERT_TRUE(isa::check_instruction(p.inst()).empty()) << isa::check_instruction(p.inst())[0];
      const DramImage image = p.run_ours();
      const std::vector<float> master = image.read_f32(weight), low = image.read_f32(copy);
      EXPECT_NE(master, w);
      expect_rounded_equal(t, low, master, std::string(isa::opcode_info(op).mnemonic));
    }
  }
  Program bad(isa::Opcode::Sgd);
  bad.set(isa::Slot::Weight, bad.zeros({4}))
      .set(isa::Slot::Grad, bad.zeros({4}))
      .set(isa::Slot::WeightCopy, bad.zeros({5}, isa::DType::BF16));
  bad.inst().set_f32(isa::Field::Lr, 0.1f);
  EXPECT_EQ(isa::check_instruction(bad.inst()).at(0),
            "operand 'weight_copy' has 5 elements, 'weight' has 4");
}

// Dynamic loss scaling, as torch._amp_update_scale_ moves the scale (its CUDA kernel; 1.13 has
// no CPU one): written out by hand for growth_interval 3.
TEST(FunctionalLowPrecision, LossScaleBacksOffOnOverflowAndGrowsAfterCleanSteps) {
  numerics::AmpScaleParams p;
  p.growth_interval = 3;
  float scale = 65536.0f;
  int32_t tracker = 0;
  const std::vector<std::pair<bool, std::pair<float, int32_t>>> steps = {
      {false, {65536.0f, 1}}, {false, {65536.0f, 2}}, {false, {131072.0f, 0}},
      {true, {65536.0f, 0}},  {false, {65536.0f, 1}}, {true, {32768.0f, 0}}};
  for (const auto& [found, want] : steps) {
    numerics::amp_update_scale(p, found, scale, tracker);
    EXPECT_EQ(scale, want.first);
    EXPECT_EQ(tracker, want.second);
  }
  // Growth that would overflow keeps the scale but restarts the count.
  scale = std::ldexp(1.0f, 127);
  tracker = 2;
  numerics::amp_update_scale(p, false, scale, tracker);
  EXPECT_EQ(scale, std::ldexp(1.0f, 127));
  EXPECT_EQ(tracker, 0);
  EXPECT_EQ(numerics::amp_inv_scale(65536.0f), std::ldexp(1.0f, -16));
  EXPECT_EQ(numerics::amp_inv_scale(3.0f), static_cast<float>(1.0 / 3.0));
}

// The instructions: amp_check raises the flag on an inf or a NaN and clears it otherwise; an
// optimizer given a raised flag writes nothing, neither the weight nor AdamW's step count;
// amp_update moves the scale and gives the next inverse.
TEST(FunctionalLowPrecision, OverflowedStepsUpdateNothing) {
  for (const float bad : {INFINITY, NAN, 1.0f}) {
    Program check(isa::Opcode::AmpCheck);
    const auto flag = check.values({1}, {1.0f});  // a flag left from before is replaced
    check.set(isa::Slot::X, check.typed({5}, isa::DType::F16, {1, 2, bad, 4, 5}))
        .set(isa::Slot::FoundInf, flag);
    ASSERT_TRUE(isa::check_instruction(check.inst()).empty());
    EXPECT_EQ(check.result(flag)[0], bad == 1.0f ? 0.0f : 1.0f) << bad;
  }
  for (const float found : {0.0f, 1.0f}) {
    for (isa::Opcode op : {isa::Opcode::Sgd, isa::Opcode::AdamW}) {
      Program p(op);
      const auto weight = p.values({4}, {1, 2, 3, 4});
      const auto step = p.zeros({1}, isa::DType::I32);
      p.set(isa::Slot::Weight, weight)
          .set(isa::Slot::Grad, p.values({4}, {0.5f, 0.5f, 0.5f, 0.5f}))
          .set(isa::Slot::FoundInf, p.values({1}, {found}));
      if (op == isa::Opcode::AdamW)
        p.set(isa::Slot::ExpAvg, p.zeros({4}))
            .set(isa::Slot::ExpAvgSq, p.zeros({4}))
            .set(isa::Slot::Step, step);
      p.inst().set_f32(isa::Field::Lr, 0.1f);
      ASSERT_TRUE(isa::check_instruction(p.inst()).empty());
      const DramImage image = p.run_ours();
      EXPECT_EQ(image.read_f32(weight) == std::vector<float>({1, 2, 3, 4}), found != 0.0f);
      if (op == isa::Opcode::AdamW) {
        EXPECT_EQ(image.read_i32(step)[0], found != 0.0f ? 0 : 1);
      }
    }
  }
  Program update(isa::Opcode::AmpUpdate);
  const auto scale = update.values({1}, {65536.0f});
  const auto tracker = update.zeros({1}, isa::DType::I32);
  const auto inv = update.zeros({1});
  update.set(isa::Slot::FoundInf, update.values({1}, {1.0f}))
      .set(isa::Slot::LossScale, scale)
      .set(isa::Slot::GrowthTracker, tracker)
      .set(isa::Slot::InvScale, inv);
  ASSERT_TRUE(isa::check_instruction(update.inst()).empty());
  const DramImage image = update.run_ours();
  EXPECT_EQ(image.read_f32(scale)[0], 32768.0f);
  EXPECT_EQ(image.read_f32(inv)[0], std::ldexp(1.0f, -15));
  update.inst().set_f32(isa::Field::BackoffFactor, 0.0f);
  EXPECT_EQ(isa::check_instruction(update.inst()).at(0),
            "field 'backoff_factor' is 0.000000; it must be finite and > 0");
}

// The Graph-IR carries 16-bit tensors: a training step that rounds an activation through bf16
// and f16 (cast ops; their gradients cast back) compiles to cast instructions on 16-bit
// descriptors, and the functional model leaves every byte the stream checker does, and the
// loss and the updated weight the reference interpreter computes.
// A one-layer training step whose logits round through bf16 and f16 (with casts = true).
ir::Graph cast_step(bool casts) {
  using ir::DType;
  ir::Graph g("casts");
  const std::vector<float> vx = random_values(4 * 6, 12, 2.0f), vw = random_values(5 * 6, 13);
  const ir::TensorId x = g.add_parameter("x", ir::TensorRole::Input, DType::F32, {4, 6},
                                         std::make_shared<ir::HostArray>(vx));
  const ir::TensorId w = g.add_parameter("w", ir::TensorRole::Weight, DType::F32, {5, 6},
                                         std::make_shared<ir::HostArray>(vw));
  const ir::TensorId labels =
      g.add_parameter("labels", ir::TensorRole::Label, DType::I32, {4},
                      std::make_shared<ir::HostArray>(std::vector<int32_t>{1, 0, 4, 2}));
  ir::TensorId h =
      g.add(ir::OpType::Gemm, "fc", ir::OpCategory::Forward, {x, w}, {{"trans_b", int64_t{1}}});
  if (casts)
    for (const char* type : {"bf16", "f16", "f32"})
      h = g.add(ir::OpType::Cast, std::string("to_") + type, ir::OpCategory::Forward, {h},
                {{"dtype", std::string(type)}});
  g.set_loss(g.add(ir::OpType::SoftmaxCe, "loss", ir::OpCategory::Forward, {h, labels}));
  ir::build_training_step(g, ir::OptimizerOptions{"sgd", 0.5, 0.0, 0.0});
  return g;
}

// The Graph-IR carries 16-bit tensors: a training step that rounds the logits through bf16 and
// f16 (cast ops; their gradients cast back) compiles to cast instructions on 16-bit
// descriptors, and the functional model leaves every byte the stream checker does, and the
// loss and the updated weight the reference interpreter computes.
TEST(FunctionalLowPrecision, CastsInAGraphCompileAndMatchTheInterpreter) {
  const ir::Graph g = cast_step(true);
  EXPECT_EQ(g.tensor(g.find_tensor("to_bf16")).dtype, ir::DType::BF16);
  EXPECT_EQ(g.tensor(g.find_tensor("to_f16")).dtype, ir::DType::F16);
  const compiler::BackendOptions defaults;  // a named object: GCC 12 -O3 warned of a temporary
  const compiler::BackendResult compiled = compiler::run_backend(g, defaults);
  const isa::Executable exe =
      isa::read_executable(isa::serialize(compiled.executable), "casts.bin");
  std::set<std::pair<isa::DType, isa::DType>> casts;
  for (const isa::Instruction& inst : exe.instructions)
    if (inst.opcode() == isa::Opcode::Cast)
      casts.insert({inst.get(isa::Slot::X).dtype, inst.get(isa::Slot::Y).dtype});
  // f32 -> bf16 -> f16 -> f32 forward, f32 -> f16 -> bf16 -> f32 backward.
  EXPECT_EQ(casts.size(), 6u);

  const DramImage ours = execute_program(exe);
  EXPECT_TRUE(ours.bytes() == lower::execute_stream(exe).bytes());
  ir::Interpreter reference(g);
  reference.run();
  for (const isa::TensorEntry& entry : exe.tensors) {
    if (entry.name != "w" && entry.name != "loss") continue;
    const ir::TensorId t = g.find_tensor(entry.name);
    const ir::HostArray want =
        entry.name == "loss" ? reference.value(t) : reference.buffer(g.tensor(t).data);
    std::vector<uint8_t> bytes(want.size() * 4);
    std::memcpy(bytes.data(), want.f32().data(), bytes.size());
    EXPECT_TRUE(ours.entry_bytes(entry) == bytes) << entry.name;
  }
  // The rounding is real: without the casts the loss differs.
  const ir::Graph plain = cast_step(false);
  ir::Interpreter unrounded(plain);
  unrounded.run();
  EXPECT_NE(reference.value(g.loss()).f32()[0], unrounded.value(plain.loss()).f32()[0]);
}

TEST(FunctionalLowPrecision, SemanticsNameTheOperandOfAWrongType) {
  // The PE array multiplies one type per instruction.
  Program mixed(isa::Opcode::Gemm);
  mixed.set(isa::Slot::A, mixed.zeros({2, 3}, isa::DType::BF16))
      .set(isa::Slot::B, mixed.zeros({3, 4}, isa::DType::F16))
      .set(isa::Slot::Y, mixed.zeros({2, 4}));
  const auto problems = isa::check_instruction(mixed.inst());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "operand 'b' is f16 but the PE array multiplies bf16 in this instruction: every "
            "multiplicand has one element type");
  EXPECT_EQ(isa::multiplicand_dtype(mixed.inst()), isa::DType::BF16);
  // Optimizer state and master weights stay f32.
  Program sgd(isa::Opcode::Sgd);
  sgd.set(isa::Slot::Weight, sgd.zeros({4}, isa::DType::BF16))
      .set(isa::Slot::Grad, sgd.zeros({4}, isa::DType::BF16));
  sgd.inst().set_f32(isa::Field::Lr, 0.1f);
  const auto sgd_problems = isa::check_instruction(sgd.inst());
  ASSERT_EQ(sgd_problems.size(), 1u);
  EXPECT_EQ(sgd_problems[0], "operand 'weight' has element type bf16, expected f32");
  // An integer type is no float.
  Program cast(isa::Opcode::Cast);
  cast.set(isa::Slot::X, cast.zeros({4}, isa::DType::I32)).set(isa::Slot::Y, cast.zeros({4}));
  EXPECT_EQ(isa::check_instruction(cast.inst()).at(0),
            "operand 'x' has element type i32, expected f32, bf16 or f16");
}

// Fused attention's backward in bf16 and f16: dq sums its key blocks in the f32 dq_acc, which
// ends holding the unrounded dq, and dq is that rounded once; the compiler's executor gives
// the same bytes. A 16-bit dq without dq_acc, and an f32 dq with one, are malformed.
TEST(FunctionalLowPrecision, SixteenBitAttentionBackwardSumsDqInAnF32Scratch) {
  using isa::Slot;
  const std::vector<uint32_t> shape{2, 9, 4};
  for (isa::DType type : {isa::DType::BF16, isa::DType::F16, isa::DType::F32}) {
    SCOPED_TRACE(isa::dtype_name(type));
    Program p(isa::Opcode::AttnBwd);
    const auto dq = p.zeros(shape, type);
    p.set(Slot::Q, p.typed(shape, type, random_values(72, 11)))
        .set(Slot::K, p.typed(shape, type, random_values(72, 12)))
        .set(Slot::V, p.typed(shape, type, random_values(72, 13)))
        .set(Slot::Y, p.typed(shape, type, random_values(72, 14)))
        .set(Slot::Dy, p.typed(shape, type, random_values(72, 15)))
        .set(Slot::Lse, p.values({2, 9}, random_values(18, 16)))
        .set(Slot::DQ, dq)
        .set(Slot::DK, p.zeros(shape, type))
        .set(Slot::DV, p.zeros(shape, type))
        .field(isa::Field::Causal, 1)
        .field(isa::Field::BlockQ, 4)
        .field(isa::Field::BlockK, 4);
    p.inst().set_f32(isa::Field::Scale, 0.5f);
    const auto acc = p.zeros(shape);
    if (type == isa::DType::F32) {
      EXPECT_TRUE(isa::check_instruction(p.inst()).empty());
      p.set(Slot::DqAcc, acc);
      EXPECT_EQ(isa::check_instruction(p.inst()).at(0),
                "'dq' is f32 and sums its key blocks itself; 'dq_acc' must be absent");
      continue;
    }
    EXPECT_EQ(isa::check_instruction(p.inst()).at(0),
              "'dq' is " + std::string(isa::dtype_name(type)) +
                  ", so its partial sums over key blocks need 'dq_acc' (f32, the shape of 'q')");
    p.set(Slot::DqAcc, acc);
    ASSERT_TRUE(isa::check_instruction(p.inst()).empty());
    const DramImage image = p.run_ours();
    const std::vector<float> sums = image.read_f32(acc), rounded_dq = image.read_f32(dq);
    size_t unrounded = 0;
    for (size_t i = 0; i < sums.size(); ++i) {
      EXPECT_EQ(f32_bits(rounded_dq[i]), f32_bits(numerics::round_to(type, sums[i]))) << i;
      unrounded += numerics::round_to(type, sums[i]) != sums[i];
    }
    EXPECT_GT(unrounded, sums.size() / 2);
    EXPECT_TRUE(p.matches_reference());
  }
}

}  // namespace
}  // namespace s2::sim::functional
