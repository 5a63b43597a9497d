#pragma once
// eltwise on the PPU: y = op(a, b) element by element over the operands' row-major order
// (equal element counts, shapes may differ), one pass of the datapath's PPU lanes with the
// lane operations of isa/numerics/lane_ops.h: axpby = (scale_a * a) + (scale_b * b),
// scale = (scale_a * a) + scale_b, each product and sum rounded on its own; max and min
// propagate a NaN; relu and relu_bwd compare strictly with +0.0f; act and act_bwd are the
// activation functions of isa/numerics/activation.h.

#include <vector>

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

// The lane op of an eltwise op; a UserError for a code that is no EltwiseOp.
LaneOp lane_op(isa::EltwiseOp op);

// The element types of an eltwise's operands in memory (LanePass::in_type / out_type).
struct StreamTypes {
  isa::DType a = isa::DType::F32;
  isa::DType b = isa::DType::F32;
  isa::DType y = isa::DType::F32;
};

// b is empty for the unary ops (isa::is_unary); act is the activation of act and act_bwd.
std::vector<float> eltwise(PpuLanes& ppu, isa::EltwiseOp op, const std::vector<float>& a,
                           const std::vector<float>& b, float scale_a, float scale_b,
                           isa::Activation act = isa::Activation::None,
                           const StreamTypes& types = {});

void run_eltwise(const isa::Instruction& inst, DramImage& image, Datapath& dp);
// cast: x read into the datapath and written in y's element type (the rounding of
// DramImage::write_f32); no arithmetic. A pass of the PPU lanes (LaneOp::Cast), so that the
// PPU RTL's load and store do the conversion in an --rtl run.
void run_cast(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
