#pragma once
// Initializers: the model's weights (named by their PyTorch state_dict keys) and constant
// shapes.
//
// Every initializer becomes a constant of the import (readable as a constant shape). Each
// FLOAT initializer that some node reads as a tensor also becomes a parameter of the graph,
// named after it, with its contents: role State when a node reads it as persistent state
// (batch-norm running statistics), Weight otherwise. Initializers no node reads as a tensor
// (e.g. shapes) do not become parameters.
//
// PyTorch's exporter gives initializers with equal contents one name and reaches the others
// through Identity nodes (an eval-mode export does this for the zero biases of folded batch
// norms). Such an Identity's output becomes a parameter of its own, with a copy of the
// contents, so that training does not tie weights that are independent in the model.

#include "compiler/onnx/import_context.h"

namespace s2::onnx_import {

// Adds the parameters and binds their names in `ctx`. Call before translating the nodes.
void import_initializers(ImportContext& ctx);

}  // namespace s2::onnx_import
