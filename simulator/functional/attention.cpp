#include "simulator/functional/attention.h"

#include <vector>

#include "isa/numerics/attention.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Field;
using isa::Slot;

numerics::AttentionGeometry geometry(const isa::Instruction& inst, const Operands& ops) {
  const std::vector<uint32_t> q = ops.desc(Slot::Q).dims();
  const size_t r = q.size();
  numerics::AttentionGeometry g;
  g.tq = q[r - 2];
  g.d = q[r - 1];
  g.tk = ops.desc(Slot::K).shape[r - 2];
  g.dv = ops.desc(Slot::V).shape[r - 1];
  g.batches = ops.desc(Slot::Q).elements() / (g.tq * g.d);
  g.block_q = inst.u(Field::BlockQ);
  g.block_k = inst.u(Field::BlockK);
  g.scale = inst.f32(Field::Scale);
  g.causal = inst.flag(Field::Causal);
  g.mode = ops.desc(Slot::Q).dtype;
  return g;
}

}  // namespace

void run_attn_fwd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const numerics::AttentionGeometry g = geometry(inst, ops);
  const std::vector<float> q = ops.f32(Slot::Q), k = ops.f32(Slot::K), v = ops.f32(Slot::V);
  const auto mask = ops.opt_f32(Slot::Mask);
  std::vector<float> y(g.batches * g.tq * g.dv), lse(g.batches * g.tq);
  numerics::attention_forward(g, q.data(), k.data(), v.data(), mask ? mask->data() : nullptr,
                              y.data(), lse.data(), dp.pe);
  ops.write(Slot::Y, y);
  ops.write(Slot::Lse, lse);
}

void run_attn_bwd(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  Operands ops(inst, image);
  const numerics::AttentionGeometry g = geometry(inst, ops);
  const std::vector<float> q = ops.f32(Slot::Q), k = ops.f32(Slot::K), v = ops.f32(Slot::V);
  const std::vector<float> y = ops.f32(Slot::Y), dy = ops.f32(Slot::Dy), lse = ops.f32(Slot::Lse);
  const auto mask = ops.opt_f32(Slot::Mask);
  std::vector<float> dq(q.size()), dk(k.size()), dv(v.size());
  numerics::attention_backward(g, q.data(), k.data(), v.data(), mask ? mask->data() : nullptr,
                               y.data(), dy.data(), lse.data(), dq.data(), dk.data(), dv.data(),
                               dp.pe);
  ops.write(Slot::DQ, dq);
  if (ops.has(Slot::DqAcc)) ops.write(Slot::DqAcc, dq);  // the unrounded sums
  ops.write(Slot::DK, dk);
  ops.write(Slot::DV, dv);
}

}  // namespace s2::sim::functional
