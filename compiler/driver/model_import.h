#pragma once
// The `import` pass's work: a model-zoo model or an ONNX file as a forward graph, with the
// batch and labels optionally replaced from .npy files (`s2c compile --input/--labels`).

#include "compiler/driver/frontend.h"

namespace s2::compiler {

// Throws UserError for an unknown model, a bad ONNX file, or a .npy file whose type or shape
// does not fit (or labels outside [0, classes)).
ir::Graph import_model(const FrontendOptions& options);

}  // namespace s2::compiler
