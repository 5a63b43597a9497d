#pragma once
// The compiler's front half: the front-half passes of pass_registry.h in order, import (model
// zoo or ONNX) -> autodiff (the training step) -> shape-inference -> dce -> cse -> fold ->
// simplify -> autocast (--precision). The graph is verified after every pass; `--dump-after=NAME`
// prints it after the named one (a back-half name is left to run_backend).

#include <ostream>
#include <string>
#include <vector>

#include "compiler/autodiff/autodiff.h"
#include "compiler/ir/graph.h"
#include "compiler/onnx/onnx_import.h"
#include "compiler/passes/autocast.h"
#include "compiler/zoo/zoo.h"

namespace s2::compiler {

struct FrontendOptions {
  std::string model;                // a model-zoo name, or a path ending in .onnx
  zoo::ModelOptions model_options;  // zoo models (the seed also seeds an ONNX model's batch)
  // ONNX: what the flags given ask of the file's input and output (0: the file's own); the
  // seed comes from model_options.
  onnx_import::OnnxImportOptions onnx;
  ir::OptimizerOptions sgd;
  // --precision: the 16-bit type pass autocast stores the step in (passes/autocast.h), or F32
  // (the pass leaves the step as it is).
  isa::DType precision = isa::DType::F32;
  std::optional<ir::LossScaling> loss_scaling;  // dynamic loss scaling (fp16's default)
  std::string input_npy;                        // replaces the batch (role input) when not empty
  std::string labels_npy;                       // replaces the labels (role label) when not empty
  // A zoo language model's attention_mask [N, T] (1 attend, 0 padding) when not empty: read
  // into model_options.attention_mask before the model is built.
  std::string attention_mask_npy;
  std::string dump_after;        // a pass name (pass_registry.h), or empty
  std::ostream* dump = nullptr;  // where the dump goes (stdout when null)
};

struct PassRecord {
  std::string name;
  double milliseconds = 0;
  size_t ops = 0;  // ops in the graph after the pass
  std::string summary;
};

struct FrontendResult {
  ir::Graph graph;
  std::vector<PassRecord> passes;
  // Where the step's batch and labels come from: the --input/--labels files, or synthetic
  // (seeded) values, as the summary says.
  std::string batch_source;
};

// Throws UserError for a bad model, bad options or an unknown pass name.
FrontendResult run_frontend(const FrontendOptions& options);
// The same from the forward graph the `import` pass gives for `options` (import_model), already
// read: every front pass after it. For callers that need the forward graph too (s2c reference).
FrontendResult run_frontend(const FrontendOptions& options, ir::Graph forward);

// The summary `s2c compile` prints: ops by category and by type, parameters by role, and
// the time of each pass.
std::string frontend_summary(const FrontendResult& result);

}  // namespace s2::compiler
