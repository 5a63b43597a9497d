// dropout_mask: the scaled keep mask of dropout in training mode, drawn on the PPU by the
// counter-based generator of isa/numerics/philox.h. A dropout layer is mul(x, mask): its
// backward is mul(dy, mask), and PyTorch computes the same two products (x * noise with
// noise = bernoulli(1 - p) / (1 - p)). The mask is an ordinary tensor of the step, so it can be
// dumped and handed to PyTorch.
//
// The generator's key is {seed, counter}: `seed` an attribute the front end derives from its
// seed and the op's name, `counter` a [1] i32 state tensor the op increments in place, so
// every training step draws a new mask and a run is reproducible bit for bit.

#include "compiler/ops/dropout.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/philox.h"

namespace s2::ir {
namespace {

std::vector<OutputSpec> infer_dropout_mask(const InferContext& ctx) {
  ctx.expect_dtype(0, DType::I32);
  ctx.expect_shape(0, {1});
  const double ratio = ctx.attrs().f("ratio");
  if (!(ratio >= 0.0 && ratio < 1.0))
    ctx.fail("attribute 'ratio' must be in [0, 1), not " + std::to_string(ratio));
  const int64_t seed = ctx.attrs().i("seed");
  if (seed < 0 || seed > int64_t{UINT32_MAX})
    ctx.fail("attribute 'seed' must be in [0, 2^32), not " + std::to_string(seed));
  OutputSpec mask;
  mask.shape = ctx.attrs().ints("shape");
  if (mask.shape.empty()) ctx.fail("attribute 'shape' is empty");
  for (int64_t d : mask.shape)
    if (d < 1) ctx.fail("attribute 'shape' " + ints_text(mask.shape) + " has a dimension < 1");
  OutputSpec counter;
  counter.dtype = DType::I32;
  counter.shape = {1};
  counter.alias_input = 0;
  return {mask, counter};
}

void dropout_mask_kernel(KernelContext& k) {
  const int32_t step = k.in[0].i32[0];
  numerics::dropout_mask(static_cast<float>(k.op.attrs.f("ratio")),
                         {static_cast<uint32_t>(k.op.attrs.i("seed")), static_cast<uint32_t>(step)},
                         k.out[0].f32, static_cast<uint64_t>(k.out[0].numel()));
  k.out[1].i32[0] = static_cast<int32_t>(static_cast<uint32_t>(step) + 1u);
}

void encode_dropout_mask(const ir::Op& op, Instruction& inst) {
  FieldWriter w(op, inst);
  w.f32(Field::Ratio, "ratio");
  w.uint(Field::Seed, "seed", op.attrs.i("seed"));
}

void decode_dropout_mask(const Instruction& inst, ir::Attrs& a) {
  a.set("ratio", field_f64(inst, Field::Ratio));
  a.set("seed", int64_t{inst.u(Field::Seed)});
  a.set("shape", plane_of(inst, Slot::Y));
}

}  // namespace

uint32_t dropout_seed(uint64_t seed, const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull ^ seed;  // FNV-1a over the name, from the seed
  for (char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

TensorId add_dropout_mask(Graph& g, const std::string& name, Shape shape, double ratio,
                          uint64_t seed) {
  const TensorId counter =
      g.add_parameter(g.unique_name(name + ".counter"), TensorRole::State, DType::I32, {1},
                      std::make_shared<const HostArray>(std::vector<int32_t>{0}));
  return g.add_op(
      OpType::DropoutMask, g.unique_name(name + ".mask"), OpCategory::Forward, {counter},
      Attrs{{"shape", shape}, {"ratio", ratio}, {"seed", int64_t{dropout_seed(seed, name)}}})[0];
}

TensorId add_dropout(Graph& g, const std::string& name, TensorId x, double ratio, uint64_t seed) {
  if (ratio == 0.0) return x;
  const Shape shape = g.tensor(x).shape;  // a copy: adding the counter may move the tensors
  const TensorId mask = add_dropout_mask(g, name, shape, ratio, seed);
  return g.add(OpType::Mul, g.unique_name(name), OpCategory::Forward, {x, mask});
}

void register_dropout_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::DropoutMask,
                  FusionClass::Ppu,
                  {{"counter"}},
                  {"mask", "counter_out"},
                  {{"shape", AttrKind::Ints, AttrValue(std::vector<int64_t>{1})},
                   {"ratio", AttrKind::Float, AttrValue(0.5)},
                   {"seed", AttrKind::Int, AttrValue(int64_t{0})}},
                  infer_dropout_mask,
                  nullptr,
                  dropout_mask_kernel,
                  "mask [shape] = u(i) < 1 - ratio ? 1 / (1 - ratio) : 0 (f32), u(i) the "
                  "Philox4x32-10 uniform of element i under key {seed, counter}; counter (i32 "
                  "[1], state) is incremented in place. Dropout is mul(x, mask). No backward "
                  "rule (the mask is not differentiable)."},
         {OpType::DropoutMask,
          Opcode::DropoutMask,
          {{"counter", Slot::Counter}},
          {{"mask", Slot::Y}, {"counter_out", Slot::Counter}},
          false,
          encode_dropout_mask,
          decode_dropout_mask,
          always});
}

}  // namespace s2::ir
