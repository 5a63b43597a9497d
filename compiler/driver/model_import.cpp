#include "compiler/driver/model_import.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/io/npy.h"
#include "compiler/onnx/onnx_import.h"
#include "compiler/zoo/zoo.h"
#include "isa/common/errors.h"
#include "isa/encoding/isa_table.h"

namespace s2::compiler {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The (first) softmax_ce of the loss: its logits' second dimension is the class count.
const ir::Op& loss_op(const ir::Graph& g) {
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& op = g.op(ir::OpId(i));
    if (op.type == ir::OpType::SoftmaxCe) return op;
  }
  throw InternalError("graph '" + g.name() + "' has a loss but no softmax_ce");
}

// Checks token ids against every embedding table that looks them up: each id must name a row.
void check_ids(const ir::Graph& g, ir::DataId data, const std::vector<int32_t>& ids,
               const std::string& path) {
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& op = g.op(ir::OpId(i));
    if (op.type != ir::OpType::Embedding || g.tensor(op.inputs.at(1)).data != data) continue;
    const int64_t rows = g.tensor(op.inputs.at(0)).shape.at(0);
    for (size_t k = 0; k < ids.size(); ++k)
      if (ids[k] < 0 || ids[k] >= rows)
        throw UserError(path + ": token id " + std::to_string(ids[k]) + " at index " +
                        std::to_string(k) + " is outside the " + std::to_string(rows) +
                        " rows of '" + g.tensor(op.inputs.at(0)).name + "' [0, " +
                        std::to_string(rows) + ")");
  }
}

ir::Graph read_model(const FrontendOptions& o) {
  if (ends_with(o.model, ".onnx")) {
    onnx_import::OnnxImportOptions io = o.onnx;
    io.seed = o.model_options.seed;
    return onnx_import::import_onnx(o.model, io);
  }
  if (o.onnx.aux_loss_weight >= 0.0)
    throw UserError("--aux-loss-weight: zoo model '" + o.model +
                    "' has no auxiliary classifier (the option is for ONNX exports of GoogLeNet "
                    "and Inception-v3 with their auxiliary outputs)");
  return zoo::build_model(o.model, o.model_options);
}

// The one parameter with `role` (its data node), or an invalid id.
ir::TensorId parameter_with(const ir::Graph& g, ir::TensorRole role) {
  for (size_t i = 0; i < g.num_tensors(); ++i) {
    const ir::Tensor& t = g.tensor(ir::TensorId(i));
    if (!t.producer.valid() && g.data(t.data).role == role) return ir::TensorId(i);
  }
  return {};
}

// Replaces the initial contents of the one parameter with `role` by a .npy file's, which must
// have the parameter's element type and shape. (Token ids go into the model as it is built:
// import_model.)
void load_npy_into(ir::Graph& g, ir::TensorRole role, const std::string& path, const char* flag) {
  const ir::TensorId id = parameter_with(g, role);
  if (!id.valid())
    throw UserError(std::string(flag) + ": the model has no " + isa::role_name(role) + " tensor");
  const ir::Tensor& t = g.tensor(id);
  ir::HostArray values = io::read_npy_expect(path, t.dtype, t.shape);
  if (role == ir::TensorRole::Label && g.loss().valid()) {
    const ir::Op& loss = loss_op(g);
    const int64_t classes = g.tensor(loss.inputs.at(0)).shape.at(1);
    const int64_t ignore = loss.attrs.i("ignore_index");
    for (size_t k = 0; k < values.size(); ++k)
      if (values.i32()[k] != ignore && (values.i32()[k] < 0 || values.i32()[k] >= classes))
        throw UserError(path + ": label " + std::to_string(values.i32()[k]) + " at index " +
                        std::to_string(k) + " is outside [0, " + std::to_string(classes) +
                        ") and is not the ignore_index " + std::to_string(ignore));
  }
  g.mutable_data(t.data).init = std::make_shared<const ir::HostArray>(std::move(values));
}

// A zoo language model's batch of token ids: [batch, seq-len].
ir::Shape lm_batch_shape(const FrontendOptions& o, const zoo::Model& model) {
  return {o.model_options.batch, zoo::lm_shape(o.model, *model.lm, o.model_options.lm).seq_len};
}

// The zoo language model's attention_mask from --attention-mask: a .npy [batch, seq-len] of
// 1 (attend) and 0 (padding), int32, int64 or uint8. Empty when the model is not in the zoo
// (read_model then names the unknown model).
std::vector<int32_t> read_attention_mask(const FrontendOptions& o) {
  const std::string& path = o.attention_mask_npy;
  if (ends_with(o.model, ".onnx"))
    throw UserError(
        "--attention-mask: applies to the zoo's language models; the ONNX importer "
        "takes one input, the batch");
  const zoo::Model* model = zoo::model_registry().find(o.model);
  if (model == nullptr) return {};
  if (!model->lm)
    throw UserError("--attention-mask: model '" + o.model +
                    "' is not a language model; a padding mask applies to gpt, gpt2-small, "
                    "bert and bert-base");
  const ir::Shape expected = lm_batch_shape(o, *model);
  const io::NpyArray mask = io::read_npy(path);
  if (mask.shape != expected)
    throw UserError(path + ": attention mask of shape " + ir::ints_text(mask.shape) +
                    ", the model's batch and sequence need " + ir::ints_text(expected));
  const isa::DType dtype = mask.data.dtype();
  if (dtype != isa::DType::I32 && dtype != isa::DType::U8)
    throw UserError(path + ": attention mask of element type " +
                    std::string(isa::dtype_name(dtype)) +
                    "; give integers (int32, int64 or uint8) of 1 and 0");
  std::vector<int32_t> values(static_cast<size_t>(ir::shape_numel(expected)));
  for (size_t k = 0; k < values.size(); ++k) {
    values[k] = dtype == isa::DType::I32 ? mask.data.i32()[k] : mask.data.u8()[k];
    if (values[k] != 0 && values[k] != 1)
      throw UserError(path + ": attention mask value " + std::to_string(values[k]) + " at index " +
                      std::to_string(k) + " is neither 1 (attend) nor 0 (padding)");
  }
  return values;
}

// A mean loss over no labelled position is 0/0: NaN, and every gradient with it. PyTorch's
// cross_entropy returns that silently; here the labels are known before the step runs.
void check_some_label(const ir::Graph& g, const FrontendOptions& o) {
  if (!g.loss().valid()) return;
  const ir::Op& loss = loss_op(g);
  const ir::TensorId labels = parameter_with(g, ir::TensorRole::Label);
  if (loss.attrs.s("reduction") != "mean" || !labels.valid()) return;
  const int64_t ignore = loss.attrs.i("ignore_index");
  for (const int32_t label : g.data(g.tensor(labels).data).init->i32())
    if (label != ignore) return;
  const std::string why =
      ": every label is the ignore_index " + std::to_string(ignore) +
      ", so the loss, a mean over the labelled positions, would be 0/0 (NaN) and so would every "
      "gradient";
  if (!o.labels_npy.empty()) throw UserError(o.labels_npy + why);
  if (!o.attention_mask_npy.empty())
    throw UserError("model '" + o.model + "' with --attention-mask " + o.attention_mask_npy + why +
                    ": no sequence has a token after its first that is not padding, so "
                    "none has a next token to predict");
  throw UserError("model '" + o.model + "'" + why +
                  ": a sequence of one token has no next token to predict; give sequences of "
                  "two tokens or more (--seq-len)");
}

}  // namespace

ir::Graph import_model(const FrontendOptions& options) {
  FrontendOptions o = options;
  if (!o.attention_mask_npy.empty()) o.model_options.attention_mask = read_attention_mask(o);
  // A language model's labels come from its token ids (gpt's next tokens, bert's masked ones),
  // so --input's ids go into the model before it draws them; an image batch is loaded after.
  const zoo::Model* zoo_model = zoo::model_registry().find(o.model);
  if (!o.input_npy.empty()) {
    if (zoo_model != nullptr && zoo_model->lm) {
      o.model_options.input_ids =
          io::read_npy_expect(o.input_npy, isa::DType::I32, lm_batch_shape(o, *zoo_model)).i32();
    } else if (ends_with(o.model, ".onnx")) {
      o.onnx.token_ids_npy = o.input_npy;
    }
  }
  ir::Graph graph = read_model(o);
  const ir::TensorId input = parameter_with(graph, ir::TensorRole::Input);
  if (!options.input_npy.empty() && input.valid() && graph.tensor(input).dtype == ir::DType::I32) {
    // The ids are in; bert's input now holds its [MASK] tokens, so check the ids as given.
    const std::vector<int32_t>& ids = !o.model_options.input_ids.empty()
                                          ? o.model_options.input_ids
                                          : graph.data(graph.tensor(input).data).init->i32();
    check_ids(graph, graph.tensor(input).data, ids, options.input_npy);
  } else if (!options.input_npy.empty()) {
    load_npy_into(graph, ir::TensorRole::Input, options.input_npy, "--input");
  }
  if (!options.labels_npy.empty())
    load_npy_into(graph, ir::TensorRole::Label, options.labels_npy, "--labels");
  check_some_label(graph, o);
  return graph;
}

}  // namespace s2::compiler
