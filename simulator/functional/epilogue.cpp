#include "simulator/functional/epilogue.h"

#include "isa/numerics/activation.h"
#include "isa/numerics/epilogue.h"
#include "isa/numerics/low_precision.h"

namespace s2::sim::functional {

std::vector<float> broadcast_channels(const std::vector<float>& per_channel, size_t outer,
                                      size_t channels, size_t inner) {
  std::vector<float> out(outer * channels * inner);
  size_t k = 0;
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < channels; ++c)
      for (size_t t = 0; t < inner; ++t)
        out[k++] = per_channel[c];
  return out;
}

isa::Activation gate_act_of(const isa::Instruction& inst) {
  if (!inst.has_field(isa::Field::GateAct)) return isa::Activation::Relu;
  return numerics::gate_activation(inst.as<isa::GateAct>(isa::Field::GateAct));
}

void run_epilogue(PpuLanes& ppu, std::vector<float>& y, const EpilogueOperands& e,
                  isa::DType y_type, std::vector<float>* wide) {
  if (e.pre != nullptr) {
    EpilogueOperands sums;
    sums.bias = e.bias;
    sums.residual = e.residual;
    run_epilogue(ppu, y, sums, e.pre_type);
    for (float& v : y)
      v = numerics::round_to(e.pre_type, v);
    *e.pre = y;
    EpilogueOperands rest;
    rest.act = e.act;
    rest.gate = e.gate;
    rest.gate_act = e.gate_act;
    run_epilogue(ppu, y, rest, y_type, wide);
    return;
  }
  LanePass pass;
  pass.op = LaneOp::Epilogue;
  pass.elements = y.size();
  pass.stages.bias = !e.bias.empty();
  pass.stages.residual = e.residual != nullptr;
  pass.stages.act = e.act;
  pass.stages.gate = e.gate != nullptr;
  pass.stages.gate_act = e.gate_act;
  pass.out_type[0] = y_type;
  const numerics::EpilogueStages& s = pass.stages;
  const bool stages = s.bias || s.residual || s.act != isa::Activation::None || s.gate;
  const bool rounds = y_type != isa::DType::F32;
  if (!stages && !rounds) return;
  float* second = nullptr;
  if (wide != nullptr && rounds) {
    wide->resize(y.size());
    second = wide->data();
  }
  ppu.run(pass, y.data(), s.bias ? e.bias.data() : nullptr, e.residual, e.gate, y.data(), second);
}

std::vector<float> channel_stats(const std::vector<float>& y, size_t outer, size_t channels,
                                 size_t inner) {
  std::vector<float> stats(2 * channels);
  numerics::channel_stats(y.data(), outer, channels, inner, stats.data());
  return stats;
}

}  // namespace s2::sim::functional
