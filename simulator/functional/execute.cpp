#include "simulator/functional/execute.h"

#include <array>

#include "isa/common/errors.h"
#include "isa/encoding/semantics.h"
#include "simulator/functional/batch_norm.h"
#include "simulator/functional/conv.h"
#include "simulator/functional/dma.h"
#include "simulator/functional/eltwise.h"
#include "simulator/functional/gemm.h"
#include "simulator/functional/pool.h"
#include "simulator/functional/reduce.h"
#include "simulator/functional/sgd.h"
#include "simulator/functional/softmax_ce.h"

namespace s2::sim::functional {
namespace {

using Kernel = void (*)(const isa::Instruction&, DramImage&, Datapath&);

// Control instructions move no data: program order already waits for everything.
void no_data(const isa::Instruction&, DramImage&, Datapath&) {}

// The opcode -> kernel table; a new opcode is one line here and a kernel in its family file.
struct Entry {
  isa::Opcode opcode;
  Kernel kernel;
};
constexpr Entry kKernels[] = {
    {isa::Opcode::End, no_data},
    {isa::Opcode::Barrier, no_data},
    {isa::Opcode::Copy, run_copy},
    {isa::Opcode::Fill, run_fill},
    {isa::Opcode::Conv2d, run_conv2d},
    {isa::Opcode::Conv2dBwdData, run_conv2d_bwd_data},
    {isa::Opcode::Conv2dBwdWeight, run_conv2d_bwd_weight},
    {isa::Opcode::Gemm, run_gemm},
    {isa::Opcode::BnFwd, run_bn_fwd},
    {isa::Opcode::BnBwd, run_bn_bwd},
    {isa::Opcode::MaxPoolFwd, run_maxpool_fwd},
    {isa::Opcode::MaxPoolBwd, run_maxpool_bwd},
    {isa::Opcode::AvgPoolFwd, run_avgpool_fwd},
    {isa::Opcode::AvgPoolBwd, run_avgpool_bwd},
    {isa::Opcode::Eltwise, run_eltwise},
    {isa::Opcode::SoftmaxCe, run_softmax_ce},
    {isa::Opcode::Sgd, run_sgd},
    {isa::Opcode::Reduce, run_reduce},
};

// Indexed by opcode byte. Built once; an opcode of isa.def without a kernel is an internal
// error listing the ones that have one, so adding an opcode without its kernel fails loudly.
const std::array<Kernel, 256>& kernel_table() {
  static const std::array<Kernel, 256> table = [] {
    std::array<Kernel, 256> t{};
    for (const Entry& e : kKernels)
      t[static_cast<uint8_t>(e.opcode)] = e.kernel;
    for (const isa::OpcodeInfo& info : isa::opcode_table()) {
      if (t[info.code] != nullptr) continue;
      std::string known;
      for (const Entry& e : kKernels)
        known += (known.empty() ? "" : ", ") + std::string(isa::opcode_info(e.opcode).mnemonic);
      throw InternalError("functional model: opcode '" + std::string(info.mnemonic) +
                          "' has no kernel; the kernels are: " + known);
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

std::vector<std::string> functional_opcodes() {
  const std::array<Kernel, 256>& table = kernel_table();
  std::vector<std::string> names;
  for (const isa::OpcodeInfo& info : isa::opcode_table())
    if (table[info.code] != nullptr) names.emplace_back(info.mnemonic);
  return names;
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
