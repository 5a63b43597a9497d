#include "simulator/functional/pool.h"

#include <optional>
#include <string>
#include <vector>

#include "isa/numerics/pool.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Field;
using isa::Slot;
using numerics::PoolGeometry;

// x (or dx) gives the planes and the input plane, y (or dy) the output plane.
PoolGeometry geometry(const isa::Instruction& inst, const isa::TensorDesc& input,
                      const isa::TensorDesc& output) {
  PoolGeometry g;
  g.planes = int64_t{input.shape[0]} * input.shape[1];
  g.h = input.shape[2], g.w = input.shape[3];
  g.p = output.shape[2], g.q = output.shape[3];
  g.kh = inst.u(Field::KernelH), g.kw = inst.u(Field::KernelW);
  g.sh = inst.u(Field::StrideH), g.sw = inst.u(Field::StrideW);
  g.pt = inst.u(Field::PadTop), g.pl = inst.u(Field::PadLeft);
  g.pb = inst.u(Field::PadBottom), g.pr = inst.u(Field::PadRight);
  return g;
}

size_t idx(int64_t v) {
  return static_cast<size_t>(v);
}

}  // namespace

void run_maxpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::X), ops.desc(Slot::Y));
  const std::vector<float> x = ops.f32(Slot::X);
  std::vector<float> y(idx(g.planes * g.p * g.q));
  std::vector<int32_t> at_out(y.size());
  numerics::max_pool2d_forward(g, x.data(), y.data(), at_out.data());
  ops.write(Slot::Y, y);
  if (ops.has(Slot::Idx)) ops.write(Slot::Idx, at_out);
}

void run_maxpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::Dx), ops.desc(Slot::Dy));
  const std::vector<float> dy = ops.f32(Slot::Dy);
  const std::vector<int32_t> at_in = ops.i32(Slot::Idx);
  std::vector<float> dx(idx(g.planes * g.h * g.w));
  const std::optional<size_t> bad =
      numerics::max_pool2d_backward(g, dy.data(), at_in.data(), dx.data());
  if (bad) {
    const size_t plane_out = idx(g.p * g.q);
    ops.fail("idx " + std::to_string(at_in[*bad]) + " of output " +
             std::to_string(*bad % plane_out) + " in plane " + std::to_string(*bad / plane_out) +
             " lies outside the " + std::to_string(g.h) + "x" + std::to_string(g.w) +
             " input plane");
  }
  ops.write(Slot::Dx, dx);
}

void run_avgpool_fwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::X), ops.desc(Slot::Y));
  const std::vector<float> x = ops.f32(Slot::X);
  std::vector<float> y(idx(g.planes * g.p * g.q));
  numerics::avg_pool2d_forward(g, inst.flag(Field::CountIncludePad), x.data(), y.data());
  ops.write(Slot::Y, y);
}

void run_avgpool_bwd(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const PoolGeometry g = geometry(inst, ops.desc(Slot::Dx), ops.desc(Slot::Dy));
  const std::vector<float> dy = ops.f32(Slot::Dy);
  std::vector<float> dx(idx(g.planes * g.h * g.w));
  numerics::avg_pool2d_backward(g, inst.flag(Field::CountIncludePad), dy.data(), dx.data());
  ops.write(Slot::Dx, dx);
}

}  // namespace s2::sim::functional
