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

// The mask alone: dropout_mask(ratio, dropout_seed(seed, name)) of `shape` with its step
// counter; the op is named name + ".mask", the counter name + ".counter". Stochastic depth
// multiplies a residual branch by such a mask of shape [N,1,1,1], one draw per sample.
TensorId add_dropout_mask(Graph& g, const std::string& name, Shape shape, double ratio,
                          uint64_t seed);

// y = x * mask with mask = add_dropout_mask(g, name, x's shape, ...); the product is named
// name. ratio 0 returns x unchanged.
TensorId add_dropout(Graph& g, const std::string& name, TensorId x, double ratio, uint64_t seed);

}  // namespace s2::ir
