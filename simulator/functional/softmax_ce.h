#pragma once
// softmax_ce on the PPU: logits [N, classes] against labels [N] (i32 class indices). Per row,
// in f32: max = the first-to-last running maximum (a strict >), sum = sum from +0.0f of
// exp(x - max) in class order (std::exp on float, the same libm call as the reference).
//   loss     total = sum over rows from +0.0f of (log(sum) - (x[label] - max)); divided by N
//            for reduction "mean", N counting the rows whose label is not ignore_index.
//   dlogits  exp(x - max) / sum - (c == label ? 1 : 0), then divided by N for "mean"; 0 in
//            a row whose label is ignore_index (the instruction's field; such a row adds no
//            loss either).
// Each output is computed as its own pass over the logits (loss first), as the reference's two
// kernels are. A label outside [0, classes) other than ignore_index is a UserError naming the
// sample.

#include "isa/encoding/instruction.h"
#include "simulator/functional/datapath.h"
#include "simulator/functional/dram_image.h"

namespace s2::sim::functional {

void run_softmax_ce(const isa::Instruction& inst, DramImage& image, Datapath& dp);

}  // namespace s2::sim::functional
