#include "simulator/functional/ppu_lanes.h"

#include "isa/common/errors.h"

namespace s2::sim::functional {
namespace {

template <typename Fn>
void each(size_t n, Fn fn) {
  for (size_t i = 0; i < n; ++i)
    fn(i);
}

}  // namespace

void ModelPpuLanes::run(const LanePass& p, const float* a, const float* b, const float* c,
                        const float* d, float* y, float* y2) {
  namespace nm = numerics;
  const size_t n = p.elements;
  switch (p.op) {
    case LaneOp::Add:
      return each(n, [&](size_t i) { y[i] = nm::add(a[i], b[i]); });
    case LaneOp::Sub:
      return each(n, [&](size_t i) { y[i] = nm::sub(a[i], b[i]); });
    case LaneOp::Mul:
      return each(n, [&](size_t i) { y[i] = nm::mul(a[i], b[i]); });
    case LaneOp::Max:
      return each(n, [&](size_t i) { y[i] = nm::max(a[i], b[i]); });
    case LaneOp::Min:
      return each(n, [&](size_t i) { y[i] = nm::min(a[i], b[i]); });
    case LaneOp::Relu:
      return each(n, [&](size_t i) { y[i] = nm::relu(a[i]); });
    case LaneOp::ReluBwd:
      return each(n, [&](size_t i) { y[i] = nm::relu_bwd(a[i], b[i]); });
    case LaneOp::Act:
      return each(n, [&](size_t i) { y[i] = nm::act_fwd(p.act, a[i]); });
    case LaneOp::ActBwd:
      return each(n, [&](size_t i) { y[i] = nm::act_bwd(p.act, a[i], b[i]); });
    case LaneOp::Axpby:
      return each(n, [&](size_t i) { y[i] = nm::axpby(a[i], b[i], p.alpha, p.beta); });
    case LaneOp::ScaleShift:
      return each(n, [&](size_t i) { y[i] = nm::scale_shift(a[i], p.alpha, p.beta); });
    case LaneOp::Sgd:
      return each(n, [&](size_t i) {
        float w = a[i];
        float v = c != nullptr ? c[i] : 0.0f;
        nm::sgd_step(p.sgd, w, b[i], &v);
        y[i] = w;
        if (y2 != nullptr) y2[i] = v;
      });
    case LaneOp::Epilogue:
      return each(n, [&](size_t i) {
        y[i] = nm::epilogue(p.stages, a[i], b != nullptr ? b[i] : 0.0f, c != nullptr ? c[i] : 0.0f,
                            d != nullptr ? d[i] : 0.0f, p.out_type[0]);
        if (y2 != nullptr) y2[i] = y[i];
      });
    case LaneOp::Cast:
      return each(n, [&](size_t i) { y[i] = a[i]; });
  }
  throw InternalError("functional PPU lanes: unknown lane op");
}

}  // namespace s2::sim::functional
