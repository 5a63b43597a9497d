#include "simulator/timing/ppu_model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "isa/common/errors.h"

namespace s2::sim::timing {
namespace {

using isa::Opcode;
using isa::Slot;

uint64_t elements_of(const isa::Instruction& inst, Slot slot) {
  return inst.get(slot).elements();
}

}  // namespace

double ppu_rate(const target::TargetDesc& target, target::PpuOp op, uint64_t element_bytes) {
  const target::PpuOpCost& cost = target.ppu.cost(op);
  // Results per cycle through the output buffer.
  const double port = static_cast<double>(uint64_t{target.sram.output.banks} *
                                          target.sram.output.bank_width_bytes) /
                      static_cast<double>(element_bytes);
  const double rate = std::min(static_cast<double>(target.ppu.lanes) * cost.throughput, port);
  if (!(rate > 0))
    throw InternalError("timing: PPU op '" + std::string(target::name(op)) +
                        "' has no throughput in target '" + target.name + "'");
  return rate;
}

uint64_t ppu_pass_cycles(const target::TargetDesc& target, target::PpuOp op, uint64_t elements,
                         uint64_t element_bytes) {
  if (elements == 0) return 0;
  const double rate = ppu_rate(target, op, element_bytes);
  return target.ppu.cost(op).latency +
         static_cast<uint64_t>(std::ceil(static_cast<double>(elements) / rate));
}

std::optional<target::PpuOp> ppu_op_of(isa::Opcode opcode) {
  // Derived from isa.def: a PPU instruction costs its own target::PpuOp (which target_desc.h
  // derives from the same table), an instruction of another unit no PPU op. A unit missing
  // here fails to compile.
#define S2_PPU_OP_OF_Ppu(Id) \
  case Opcode::Id:           \
    return target::PpuOp::Id;
#define S2_PPU_OP_OF_NONE(Id) \
  case Opcode::Id:            \
    return std::nullopt;
#define S2_PPU_OP_OF_Pe(Id) S2_PPU_OP_OF_NONE(Id)
#define S2_PPU_OP_OF_Dma(Id) S2_PPU_OP_OF_NONE(Id)
#define S2_PPU_OP_OF_Control(Id) S2_PPU_OP_OF_NONE(Id)
  switch (opcode) {
#define S2_OPCODE(Id, code, mnemonic, Unit, summary, operands, fields) S2_PPU_OP_OF_##Unit(Id)
#include "isa/encoding/isa.def"
  }
#undef S2_PPU_OP_OF_Ppu
#undef S2_PPU_OP_OF_NONE
#undef S2_PPU_OP_OF_Pe
#undef S2_PPU_OP_OF_Dma
#undef S2_PPU_OP_OF_Control
  S2_CHECK(false, "ppu_op_of: opcode " + std::to_string(static_cast<unsigned>(opcode)) +
                      " is not in isa.def");
  return std::nullopt;
}

std::vector<StreamPass> stream_passes(const isa::Instruction& inst) {
  auto present = [&inst](std::vector<Slot> slots) {
    std::vector<Slot> out;
    for (Slot s : slots)
      if (inst.operand(s)) out.push_back(s);
    return out;
  };
  const auto op = ppu_op_of(inst.opcode());
  switch (inst.opcode()) {
    case Opcode::BnFwd: {
      const uint64_t e = elements_of(inst, Slot::X);
      const isa::TensorDesc& x = inst.get(Slot::X);
      const uint64_t c = x.shape[1], s = uint64_t{x.shape[2]} * x.shape[3];
      std::vector<StreamPass> passes;
      const bool have_stats = inst.operand(Slot::Stats).has_value();
      if (!have_stats) passes.push_back({{Slot::X}, {}, {}, {}, e, op, c, s});
      passes.push_back(
          {{Slot::X},
           present({Slot::Y, Slot::Pre}),
           present({Slot::Gamma, Slot::Beta, Slot::Stats, Slot::RunningMean, Slot::RunningVar}),
           present({Slot::Mean, Slot::InvStd, Slot::RunningMean, Slot::RunningVar}),
           e,
           op,
           c,
           s});
      return passes;
    }
    case Opcode::BnBwd: {
      const uint64_t e = elements_of(inst, Slot::X);
      const isa::TensorDesc& x = inst.get(Slot::X);
      const uint64_t c = x.shape[1], s = uint64_t{x.shape[2]} * x.shape[3];
      const auto in = present({Slot::Dy, Slot::X, Slot::Gate});
      return {{in, {}, {Slot::Mean, Slot::InvStd}, {Slot::DGamma, Slot::DBeta}, e, op, c, s},
              {in, {Slot::Dx}, {Slot::Gamma, Slot::Mean, Slot::InvStd}, {}, e, op, c, s}};
    }
    case Opcode::LnFwd:
      // A tile holds whole rows (D values each) in the output buffer and is swept twice: the
      // row statistics, then the normalisation; x is read from DRAM once. The row statistics
      // stream out with their rows.
      return {{{Slot::X},
               {Slot::Y, Slot::Mean, Slot::InvStd},
               {Slot::Gamma, Slot::Beta},
               {},
               elements_of(inst, Slot::X),
               op}};
    case Opcode::LnBwd:
      // Per tile of rows: the row sums of dy*gamma and dy*gamma*xhat, accumulating the column
      // sums dgamma, dbeta on chip, then dx.
      return {{{Slot::Dy, Slot::X, Slot::Mean, Slot::InvStd},
               {Slot::Dx},
               {Slot::Gamma},
               {Slot::DGamma, Slot::DBeta},
               elements_of(inst, Slot::X),
               op}};
    case Opcode::Softmax:
      // Like ln_fwd: a tile of whole rows in the output buffer, swept twice (the row's max and
      // sum of exponentials, then the division); x and the mask are read from DRAM once.
      return {{present({Slot::X, Slot::Mask}), {Slot::Y}, {}, {}, elements_of(inst, Slot::X), op}};
    case Opcode::SoftmaxBwd:
      // Per tile of rows: the row sums of dy * y, then dx.
      return {{{Slot::Dy, Slot::Y}, {Slot::Dx}, {}, {}, elements_of(inst, Slot::Y), op}};
    case Opcode::MaxPoolFwd:
      return {{{Slot::X}, present({Slot::Y, Slot::Idx}), {}, {}, elements_of(inst, Slot::Y), op}};
    case Opcode::MaxPoolBwd:
      return {{{Slot::Dy, Slot::Idx}, {Slot::Dx}, {}, {}, elements_of(inst, Slot::Dx), op}};
    case Opcode::AvgPoolFwd:
      return {{{Slot::X}, {Slot::Y}, {}, {}, elements_of(inst, Slot::Y), op}};
    case Opcode::AvgPoolBwd:
      return {{{Slot::Dy}, {Slot::Dx}, {}, {}, elements_of(inst, Slot::Dx), op}};
    case Opcode::Eltwise:
      return {{present({Slot::A, Slot::B}), {Slot::Y}, {}, {}, elements_of(inst, Slot::Y), op}};
    case Opcode::SoftmaxCe:
      return {{{Slot::Logits, Slot::Labels},
               present({Slot::DLogits}),
               present({Slot::DLoss}),
               present({Slot::Loss}),
               elements_of(inst, Slot::Logits),
               op}};
    case Opcode::Sgd: {
      const auto state = present({Slot::Weight, Slot::Velocity, Slot::WeightCopy});
      return {{present({Slot::Weight, Slot::Grad, Slot::Velocity}),
               state,
               present({Slot::GradScale, Slot::FoundInf}),
               {},
               elements_of(inst, Slot::Weight),
               op}};
    }
    case Opcode::Gather: {
      StreamPass pass{{Slot::Ids, Slot::Table}, {Slot::Y}, {}, {}, elements_of(inst, Slot::Y), op};
      pass.table = Slot::Table;
      return {pass};
    }
    case Opcode::ScatterAdd: {
      StreamPass add{{Slot::Dy, Slot::Ids, Slot::Dw}, {Slot::Dw}, {}, {},
                     elements_of(inst, Slot::Dy),     op};
      add.table = Slot::Dw;
      return {{{}, {Slot::Dw}, {}, {}, 0, std::nullopt}, add};
    }
    case Opcode::AdamW:
      return {{{Slot::Weight, Slot::Grad, Slot::ExpAvg, Slot::ExpAvgSq},
               present({Slot::Weight, Slot::ExpAvg, Slot::ExpAvgSq, Slot::WeightCopy}),
               present({Slot::Step, Slot::GradScale, Slot::FoundInf}),
               {Slot::Step},
               elements_of(inst, Slot::Weight),
               op}};
    case Opcode::Reduce:
      return {{{Slot::X}, {Slot::Y}, {}, {}, elements_of(inst, Slot::X), op}};
    case Opcode::AmpCheck:
      return {{{Slot::X}, {}, {}, {Slot::FoundInf}, elements_of(inst, Slot::X), op}};
    case Opcode::AmpUpdate:
      return {{{},
               {},
               {Slot::FoundInf, Slot::LossScale, Slot::GrowthTracker},
               present({Slot::LossScale, Slot::GrowthTracker, Slot::InvScale}),
               1,
               op}};
    case Opcode::Cast:
      return {{{Slot::X}, {Slot::Y}, {}, {}, elements_of(inst, Slot::Y), op}};
    case Opcode::ClipScale:
      return {{{Slot::SumSq},
               {},
               {},
               {Slot::GradScale, Slot::TotalNorm},
               elements_of(inst, Slot::SumSq),
               op}};
    case Opcode::DropoutMask:
      return {{{}, {Slot::Y}, {Slot::Counter}, {Slot::Counter}, elements_of(inst, Slot::Y), op}};
    case Opcode::Copy:
      return {{{Slot::Src}, {Slot::Dst}, {}, {}, 0, std::nullopt}};
    case Opcode::Fill:
      return {{{}, {Slot::Dst}, {}, {}, 0, std::nullopt}};
    default:
      throw InternalError("timing: instruction '" + std::string(inst.info().mnemonic) +
                          "' is not a PPU or DMA instruction");
  }
}

uint64_t pass_element_bytes(const isa::Instruction& inst, const StreamPass& pass) {
  uint64_t bytes = 0;
  for (Slot s : pass.stores)
    bytes = std::max<uint64_t>(bytes, isa::dtype_bytes(inst.get(s).dtype));
  return bytes == 0 ? 4 : bytes;
}

uint64_t ppu_instruction_cycles(const isa::Instruction& inst, const target::TargetDesc& target) {
  uint64_t total = 0;
  for (const StreamPass& pass : stream_passes(inst))
    if (pass.op)
      total += ppu_pass_cycles(target, *pass.op, pass.work, pass_element_bytes(inst, pass));
  return total;
}

}  // namespace s2::sim::timing
