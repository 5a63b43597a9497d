#include "simulator/functional/execute.h"

#include <array>

#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"
#include "simulator/functional/attention.h"
#include "simulator/functional/batch_norm.h"
#include "simulator/functional/conv.h"
#include "simulator/functional/dma.h"
#include "simulator/functional/dropout.h"
#include "simulator/functional/eltwise.h"
#include "simulator/functional/embedding.h"
#include "simulator/functional/gemm.h"
#include "simulator/functional/layer_norm.h"
#include "simulator/functional/pool.h"
#include "simulator/functional/reduce.h"
#include "simulator/functional/sgd.h"
#include "simulator/functional/softmax.h"
#include "simulator/functional/softmax_ce.h"

namespace s2::sim::functional {
namespace {

// Control instructions move no data: program order already waits for everything.
void no_data(const isa::Instruction&, DramImage&, Datapath&) {}

// Indexed by opcode byte, derived from the registry once; an opcode of isa.def without a
// kernel is an internal error, so adding an opcode without its kernel fails loudly.
const std::array<Kernel, 256>& kernel_table() {
  static const std::array<Kernel, 256> table = [] {
    std::array<Kernel, 256> t{};
    const KernelRegistry& r = kernel_registry();
    for (const isa::OpcodeInfo& info : isa::opcode_table()) {
      const Kernel* kernel = r.find(info.mnemonic);
      S2_CHECK(kernel != nullptr, "functional model: opcode '" + std::string(info.mnemonic) +
                                      "' has no kernel; the kernels are: " + r.known());
      t[info.code] = *kernel;
    }
    return t;
  }();
  return table;
}

}  // namespace

void execute_instruction(const isa::Instruction& inst, DramImage& image, Datapath& dp) {
  const std::vector<std::string> problems = isa::check_instruction(inst);
  if (!problems.empty()) {
    std::string text = std::string(inst.info().mnemonic) + ": malformed instruction:";
    for (const std::string& p : problems)
      text += " " + p;
    throw UserError(text);
  }
  kernel_table()[static_cast<uint8_t>(inst.opcode())](inst, image, dp);
}

const KernelRegistry& kernel_registry() {
  // A new opcode is one line here and a kernel in its family file.
  static const KernelRegistry registry = [] {
    KernelRegistry r("functional kernel");
    auto add = [&r](isa::Opcode opcode, Kernel kernel) {
      r.add(std::string(isa::opcode_info(opcode).mnemonic), kernel);
    };
    add(isa::Opcode::End, no_data);
    add(isa::Opcode::Barrier, no_data);
    add(isa::Opcode::Copy, run_copy);
    add(isa::Opcode::Fill, run_fill);
    add(isa::Opcode::Conv2d, run_conv2d);
    add(isa::Opcode::Conv2dBwdData, run_conv2d_bwd_data);
    add(isa::Opcode::Conv2dBwdWeight, run_conv2d_bwd_weight);
    add(isa::Opcode::Gemm, run_gemm);
    add(isa::Opcode::Bmm, run_bmm);
    add(isa::Opcode::AttnFwd, run_attn_fwd);
    add(isa::Opcode::AttnBwd, run_attn_bwd);
    add(isa::Opcode::BnFwd, run_bn_fwd);
    add(isa::Opcode::BnBwd, run_bn_bwd);
    add(isa::Opcode::MaxPoolFwd, run_maxpool_fwd);
    add(isa::Opcode::MaxPoolBwd, run_maxpool_bwd);
    add(isa::Opcode::AvgPoolFwd, run_avgpool_fwd);
    add(isa::Opcode::AvgPoolBwd, run_avgpool_bwd);
    add(isa::Opcode::Eltwise, run_eltwise);
    add(isa::Opcode::SoftmaxCe, run_softmax_ce);
    add(isa::Opcode::Sgd, run_sgd);
    add(isa::Opcode::AdamW, run_adamw);
    add(isa::Opcode::ClipScale, run_clip_scale);
    add(isa::Opcode::Reduce, run_reduce);
    add(isa::Opcode::DropoutMask, run_dropout_mask);
    add(isa::Opcode::LnFwd, run_ln_fwd);
    add(isa::Opcode::LnBwd, run_ln_bwd);
    add(isa::Opcode::Gather, run_gather);
    add(isa::Opcode::ScatterAdd, run_scatter_add);
    add(isa::Opcode::Softmax, run_softmax);
    add(isa::Opcode::SoftmaxBwd, run_softmax_bwd);
    add(isa::Opcode::Cast, run_cast);
    add(isa::Opcode::AmpCheck, run_amp_check);
    add(isa::Opcode::AmpUpdate, run_amp_update);
    return r;
  }();
  return registry;
}

DramImage execute_program(const isa::Executable& exe, size_t k_tile) {
  ModelDatapath model(k_tile);
  DramImage image = DramImage::load(exe);
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    try {
      execute_instruction(exe.instructions[i], image, model.get());
    } catch (const UserError& e) {
      throw UserError("instruction " + std::to_string(i) + ": " + e.what());
    }
  }
  return image;
}

}  // namespace s2::sim::functional
