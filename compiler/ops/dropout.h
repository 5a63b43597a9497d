#pragma once
// Dropout in training mode as the front ends build it (the zoo's models, the ONNX importer):
// a [1] i32 step counter (state, starting at 0), dropout_mask over x's shape and mul(x, mask).

#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"

namespace s2::ir {

// The generator seed of the dropout named `name` in a model built with `seed`: a hash of
// both, so every dropout of a model draws its own stream and the same model and seed give
// the same masks.
uint32_t dropout_seed(uint64_t seed, const std::string& name);

// y = x * mask with mask = dropout_mask(ratio, dropout_seed(seed, name)); the ops are named
// name + ".mask" and name, the counter name + ".counter". ratio 0 returns x unchanged.
TensorId add_dropout(Graph& g, const std::string& name, TensorId x, double ratio, uint64_t seed);

}  // namespace s2::ir
