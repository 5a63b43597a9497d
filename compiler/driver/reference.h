#pragma once
// `s2c reference MODEL --out-dir D`: one training step of a zoo or ONNX model on the reference
// interpreter, written as .npy files for scripts/torch_reference.py (DESIGN.md validation
// ladder, step 4) and for checking the simulator against. The batch is seeded, or read from
// --input, --labels and --attention-mask as `s2c compile` reads them.
//
// out_dir receives (file names are the PyTorch state_dict keys, dots kept):
//   init/<name>.npy      every parameter before the step: weights, batch-norm running
//                        statistics, `input` and `labels` (i32), and a language model's
//                        padding mask (--attention-mask) as extended_attention_mask
//                        [N, 1, 1, T] (f32: 0 to attend, the lowest float at padding)
//   loss.npy             the loss, shape (1,)
//   grad/<weight>.npy    the summed gradient of every weight (before weight decay; with loss
//                        scaling, times the loss scale, as PyTorch's .grad before unscale_)
//   updated/<name>.npy   every weight after the SGD update, and every running statistic
//                        after the step
//   decisions/<op>.npy   the discrete choices of the forward pass: for every relu op its mask
//                        (i32, 1 where the output is positive), for every max_pool2d op its
//                        argmax indices (i32, h*W+w in the input plane), for every relu6
//                        activation its output (f32: the gradient passes where 0 < y < 6),
//                        for every dropout layer its scaled keep mask (f32); '/', '\', ':'
//                        and '%' of an op's name (an ONNX node's) are written %2F, %5C, %3A
//                        and %25 in the file name (isa/io/npy.h, file_name())
//   manifest.json        the model, its options (an ONNX model: its input's and logits'
//                        sizes), the SGD options, the input and labels tensors, the padding
//                        mask's tensor (or null), the weights and running statistics in
//                        creation (state_dict) order, and the decisions (op, type, file)
//
// Why the decisions: fp32 sums in another order differ in the last bits, so a pre-activation
// within ~1e-6 of zero (or two nearly equal values in a pooling window) can fall on the other
// side in PyTorch. Such a flip changes a gradient by O(1) at that element although both sides
// are right to rounding. The cross-check makes PyTorch follow these decisions and reports
// every flip with its margin, so it compares the arithmetic and still proves each flip is a
// near-tie.
// The directory is created if needed; files already there are overwritten.

#include <string>

#include "compiler/autodiff/autodiff.h"
#include "compiler/onnx/onnx_import.h"
#include "compiler/passes/autocast.h"
#include "compiler/zoo/zoo.h"

namespace s2::compiler {

struct ReferenceOptions {
  std::string model;  // a zoo name, or an ONNX file (compiler/onnx)
  zoo::ModelOptions model_options;
  onnx_import::OnnxImportOptions onnx;  // an ONNX model: the flags given (FrontendOptions::onnx)
  ir::OptimizerOptions sgd;
  // --precision: the step stored in this 16-bit type (passes/autocast.h, without the fusion a
  // compile adds), or F32.
  isa::DType precision = isa::DType::F32;
  std::optional<ir::LossScaling> loss_scaling;
  // The step's batch from .npy files, as `s2c compile` takes them (FrontendOptions): the
  // input, the labels and a language model's attention mask; empty: seeded.
  std::string input_npy;
  std::string labels_npy;
  std::string attention_mask_npy;
  std::string out_dir;
  // The accelerator configuration whose PE array's K-tile the interpreter accumulates with
  // (isa/numerics/pe_gemm.h); empty: the base configuration.
  std::string config;
  // Replace files in out_dir that are not .npy arrays or JSON (isa/container/output_guard.h);
  // the run's inputs (the model, the config and the .npy files) are never overwritten.
  bool force = false;
};

// Throws UserError for a bad model, bad options or a directory that cannot be written.
// Prints one line (the loss, the interpreter's time, the files written) to stdout.
void run_reference(const ReferenceOptions& options);

// Sets options->height and ->width from the `--image` argument "H" (square) or "HxW";
// anything else is a UserError quoting it.
void parse_image_size(const std::string& text, zoo::ModelOptions* options);

}  // namespace s2::compiler
