#pragma once
// sgd on the PPU, in place, element by element: numerics::sgd_step (isa/numerics/lane_ops.h)
// as one pass of the datapath's PPU lanes:
//   g = grad; if weight_decay != 0: g = g + weight_decay * weight
//   if momentum != 0: velocity = momentum * velocity + g; g = velocity
//   weight = weight - lr * g
// A non-zero momentum without a velocity operand is a UserError.
//
// adamw on the PPU, in place: the step count [1] is incremented, the per-step scalars formed
// from it (bias corrections in double, rounded once), then numerics::adamw_step per element
// (isa/numerics/adamw.h), on the model's lanes (the PPU RTL has no AdamW).
//
// With a grad_scale operand (gradient clipping), both first multiply each gradient element by
// it on the model's lanes; an RTL PPU then runs sgd on the scaled gradient.
//
// clip_scale: the global gradient norm and the clipping factor from the per-gradient sums of
// squares (isa/numerics/clip.h), on the PPU's scalar unit.
//
// Dynamic loss scaling (isa/numerics/amp.h): amp_check writes found_inf, 1 when its gradient
// holds an inf or a NaN, else 0; sgd and adamw given found_inf write nothing when it is nonzero;
// amp_update moves the loss scale and its growth tracker and gives the next step's inv_scale.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_sgd(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_adamw(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_clip_scale(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_amp_check(const isa::Instruction& inst, DramImage& image, Datapath& dp);
void run_amp_update(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
