// import_onnx: the model's input batch, its initializers, its nodes in order, then the
// labels and loss on its one output.

#include "compiler/onnx/onnx_import.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/io/npy.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/import_context.h"
#include "compiler/onnx/initializers.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/patterns.h"
#include "compiler/onnx/tensor_data.h"
#include "compiler/onnx/translators.h"
#include "isa/common/errors.h"

namespace s2::onnx_import {
namespace {

using isa::DType;
using isa::TensorRole;

std::string names_text(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names)
    s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}

bool is_initializer(const onnx::GraphProto& g, const std::string& name) {
  for (const onnx::TensorProto& t : g.initializer())
    if (t.name() == name) return true;
  return false;
}

constexpr int64_t kMaxInputElements = int64_t{1} << 31;

bool is_token_input(const onnx::ValueInfoProto& in) {
  const int32_t t = in.type().tensor_type().elem_type();
  return t == onnx::TensorProto::INT64 || t == onnx::TensorProto::INT32;
}

// The static shape of the input; a symbolic batch dimension takes options.batch.
ir::Shape input_shape(const ImportContext& ctx, const onnx::ValueInfoProto& in,
                      const OnnxImportOptions& options) {
  const std::string what = "input '" + in.name() + "'";
  if (!in.type().has_tensor_type()) ctx.fail(what + " is not a tensor");
  const onnx::TypeProto::Tensor& type = in.type().tensor_type();
  const bool tokens = is_token_input(in);
  if (type.elem_type() != onnx::TensorProto::FLOAT && !tokens)
    ctx.fail(what + " has element type " + elem_type_name(type.elem_type()) +
             "; it must be FLOAT (an image or feature batch) or INT64/INT32 (token ids)");
  if (!type.has_shape()) ctx.fail(what + " has no shape; export the model with static shapes");
  if (tokens && (options.channels > 0 || options.height > 0 || options.width > 0))
    ctx.fail(what + " holds token ids; --channels and --image do not apply");
  const int64_t requested[4] = {options.batch, options.channels, options.height, options.width};
  ir::Shape shape;
  for (int d = 0; d < type.shape().dim_size(); ++d) {
    const onnx::TensorShapeProto::Dimension& dim = type.shape().dim(d);
    if (dim.has_dim_value() && dim.dim_value() > 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    if (d == 0 && options.batch > 0) {
      shape.push_back(options.batch);
      continue;
    }
    if (d > 0 && d < 4 && requested[d] > 0) {
      shape.push_back(requested[d]);
      continue;
    }
    const std::string kind = dim.has_dim_param() ? "symbolic ('" + dim.dim_param() + "')"
                             : dim.has_dim_value()
                                 ? "invalid (" + std::to_string(dim.dim_value()) + ")"
                                 : "dynamic (no size)";
    ctx.fail(what + " dimension " + std::to_string(d) + " is " + kind +
             "; export the model with static shapes" + (d == 0 ? " or give a batch size" : ""));
  }
  if (tokens && shape.size() != 2)
    ctx.fail(what + " is " + ir::shape_text(DType::I32, shape) +
             "; token ids must be a batch of sequences [N,T]");
  if (shape.size() < 2)
    ctx.fail(what + " is " + ir::shape_text(DType::F32, shape) +
             "; it must be a batch [N,C,H,W] or [N,F]");
  // The input batch gets host contents here; a corrupt or absurd size must not exhaust memory.
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d > kMaxInputElements / numel)
      ctx.fail(what + " is " + ir::shape_text(DType::F32, shape) + ", more than " +
               std::to_string(kMaxInputElements) + " elements");
    numel *= d;
  }
  if (options.batch > 0 && shape[0] != options.batch)
    ctx.fail(what + " has a fixed batch of " + std::to_string(shape[0]) +
             "; it cannot be changed to " + std::to_string(options.batch) +
             " (re-export the model with that batch)");
  const bool image = options.height > 0 || options.width > 0;
  if ((options.channels > 0 || image) && shape.size() != 4)
    ctx.fail(what + " is " + ir::shape_text(DType::F32, shape) +
             ", not an image batch [N,C,H,W]; " +
             (options.channels > 0 ? "--channels" : "--image") + " does not apply");
  if (options.channels > 0 && shape[1] != options.channels)
    ctx.fail(what + " has " + std::to_string(shape[1]) + " channels, not the " +
             std::to_string(options.channels) +
             " of --channels (re-export the model for that input)");
  if (image && (shape[2] != options.height || shape[3] != options.width))
    ctx.fail(what + " is " + std::to_string(shape[2]) + "x" + std::to_string(shape[3]) +
             ", not the " + std::to_string(options.height) + "x" + std::to_string(options.width) +
             " of --image (re-export the model at that size: scripts/export_onnx.py --image)");
  return shape;
}

// The batch the model reads: random values in [-1, 1), reproducible from the seed.
std::shared_ptr<const ir::HostArray> random_batch(const ir::Shape& shape, uint64_t seed) {
  std::mt19937_64 rng(~seed);
  std::vector<float> values(static_cast<size_t>(ir::shape_numel(shape)));
  for (float& v : values)
    v = static_cast<float>(rng() >> 40) * 0x1p-23f - 1.0f;  // 24 random bits
  return std::make_shared<const ir::HostArray>(std::move(values));
}

ir::TensorId import_input(ImportContext& ctx, const OnnxImportOptions& options) {
  std::vector<const onnx::ValueInfoProto*> inputs;
  std::vector<std::string> names;
  // Older exports also list the initializers as graph inputs.
  for (const onnx::ValueInfoProto& in : ctx.onnx_graph().input()) {
    if (is_initializer(ctx.onnx_graph(), in.name())) continue;
    inputs.push_back(&in);
    names.push_back(in.name());
  }
  if (inputs.empty()) ctx.fail("the graph has no input besides its initializers");
  if (inputs.size() > 1)
    ctx.fail("the graph has " + std::to_string(inputs.size()) + " inputs (" + names_text(names) +
             "); the importer takes one, the image batch");
  const ir::Shape shape = input_shape(ctx, *inputs[0], options);
  if (is_token_input(*inputs[0])) {
    // The ids are drawn once the vocabulary is known (draw_token_ids).
    const ir::TensorId t =
        ctx.graph().add_parameter(names[0], TensorRole::Input, DType::I32, shape,
                                  std::make_shared<const ir::HostArray>(
                                      DType::I32, static_cast<size_t>(ir::shape_numel(shape))));
    ctx.bind(names[0], t);
    return t;
  }
  const ir::TensorId t = ctx.graph().add_parameter(names[0], TensorRole::Input, DType::F32, shape,
                                                   random_batch(shape, options.seed));
  ctx.bind(names[0], t);
  return t;
}

// The node's type as messages name it (domain-qualified outside ai.onnx) and its translator,
// or null when the importer has none.
const OnnxOp* translator_of(const onnx::NodeProto& node, std::string* type) {
  const bool pattern = node.domain() == kPatternDomain;
  const bool standard = node.domain().empty() || node.domain() == "ai.onnx";
  *type = standard ? node.op_type() : node.domain() + "." + node.op_type();
  return standard  ? onnx_op_registry().find(node.op_type())
         : pattern ? pattern_op_registry().find(node.op_type())
                   : nullptr;
}

// Every node the importer has no translator for, reported at once: one entry per operator
// type with its node count and first node, so a user sees the whole gap of a model in one run.
void check_supported(ImportContext& ctx, const std::vector<PatternNode>& nodes) {
  struct Gap {
    size_t count = 0;
    std::string first;
  };
  std::vector<std::string> order;
  std::map<std::string, Gap> gaps;
  size_t total = 0;
  for (const PatternNode& p : nodes) {
    std::string type;
    if (translator_of(p.node, &type)) continue;
    auto [it, fresh] = gaps.try_emplace(type);
    if (fresh) {
      order.push_back(type);
      it->second.first = node_display_name(p.node, p.index);
    }
    ++it->second.count;
    ++total;
  }
  if (order.empty()) return;
  if (total == 1)
    ctx.fail("node '" + gaps[order[0]].first +
             "': " + onnx_op_registry().unknown_message(order[0]) +
             " (the supported ops of domain ai.onnx)");
  std::string list;
  for (const std::string& type : order) {
    const Gap& g = gaps[type];
    list += (list.empty() ? "" : ", ") + type + " (" + std::to_string(g.count) +
            (g.count == 1 ? " node '" : " nodes, the first '") + g.first + "')";
  }
  ctx.fail(std::to_string(total) + " nodes of " + std::to_string(order.size()) +
           " operator type(s) the importer does not translate: " + list +
           "; known: " + onnx_op_registry().known() + " (the supported ops of domain ai.onnx)");
}

void translate_nodes(ImportContext& ctx) {
  const std::vector<PatternNode> nodes = recognise_patterns(ctx.onnx_graph());
  check_supported(ctx, nodes);
  for (const PatternNode& p : nodes) {
    const onnx::NodeProto& node = p.node;
    const int k = p.index;
    std::string type;
    const OnnxOp* op = translator_of(node, &type);
    const std::string name = node_display_name(node, k);
    S2_CHECK(op != nullptr, "ONNX import: node '" + name + "' has no translator after the check");
    NodeContext n(ctx, node, ctx.graph().unique_name(name));
    op->translate(n);
    // An output the translator did not bind but a later node or the graph uses: one the
    // operator does not have (a mutated Gemm with two), or one the importer does not compute
    // (batch norm's running statistics read by another node).
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string& out = node.output(i);
      if (out.empty() || !ctx.consumed(out) || ctx.lookup(out).valid() || ctx.constant(out))
        continue;
      n.fail("output " + std::to_string(i) + " '" + out +
             "' is used, but the importer computes no value for it");
    }
  }
}

// One output of the graph as logits [N, classes], checked against its declared shape and the
// options.
ir::TensorId checked_logits(ImportContext& ctx, const onnx::ValueInfoProto& out, int64_t batch,
                            const OnnxImportOptions& options) {
  const std::string what = "output '" + out.name() + "'";
  const ir::TensorId t = ctx.lookup(out.name());
  if (!t.valid()) ctx.fail(what + " is not computed by any node");
  const ir::Tensor& logits = ctx.graph().tensor(t);
  const std::string text = ir::shape_text(logits.dtype, logits.shape);
  if (logits.dtype != DType::F32 || logits.shape.size() != 2)
    ctx.fail(what + " is " + text + "; the loss needs logits [N,classes]");
  if (logits.shape[0] != batch)
    ctx.fail(what + " is " + text + "; its first dimension must be the batch, " +
             std::to_string(batch));
  if (out.type().has_tensor_type() && out.type().tensor_type().has_shape()) {
    const onnx::TensorShapeProto& declared = out.type().tensor_type().shape();
    bool same = declared.dim_size() == 2;
    for (int d = 0; same && d < 2; ++d)
      same = !declared.dim(d).has_dim_value() ||
             declared.dim(d).dim_value() == logits.shape[static_cast<size_t>(d)];
    if (!same) {
      ir::Shape dims;
      for (const auto& dim : declared.dim())
        dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
      ctx.fail(what + " is declared as " + ir::ints_text(dims) + " but computes " + text);
    }
  }
  if (options.num_classes > 0 && logits.shape[1] != options.num_classes)
    ctx.fail(what + " has " + std::to_string(logits.shape[1]) + " classes, not the " +
             std::to_string(options.num_classes) + " asked for");
  return t;
}

// The logits: the graph's outputs, the main classifier's first and then any auxiliary
// classifiers', all [N, classes] with the same classes.
std::vector<ir::TensorId> find_logits(ImportContext& ctx, int64_t batch,
                                      const OnnxImportOptions& options) {
  const auto& outputs = ctx.onnx_graph().output();
  if (outputs.empty()) ctx.fail("the graph has no output");
  std::vector<ir::TensorId> logits;
  for (const onnx::ValueInfoProto& out : outputs) {
    logits.push_back(checked_logits(ctx, out, batch, options));
    const int64_t classes = ctx.graph().tensor(logits.back()).shape[1];
    const int64_t main_classes = ctx.graph().tensor(logits.front()).shape[1];
    if (classes != main_classes)
      ctx.fail("output '" + out.name() + "' has " + std::to_string(classes) +
               " columns and the first output '" + outputs[0].name() + "' " +
               std::to_string(main_classes) +
               ": a model with several outputs trains on each as logits of the same classes "
               "(the main classifier's first, then auxiliary classifiers')");
  }
  if (logits.size() == 1 && options.aux_loss_weight >= 0.0)
    ctx.fail(
        "--aux-loss-weight was given, but the graph has one output and no auxiliary "
        "classifier (export GoogLeNet or Inception-v3 with scripts/export_onnx.py "
        "--aux-logits)");
  return logits;
}

// Labels i32[N] in [0, classes), reproducible from the seed, and the mean cross-entropy of
// each output against them: the loss is the first's plus the auxiliary weight times each
// other's (torchvision's training-mode outputs of GoogLeNet and Inception-v3).
void add_loss(ir::Graph& graph, const std::vector<ir::TensorId>& logits,
              const std::vector<std::string>& output_names, const OnnxImportOptions& options) {
  const ir::Shape shape = graph.tensor(logits[0]).shape;
  std::mt19937_64 rng(options.seed);
  std::vector<int32_t> labels(static_cast<size_t>(shape[0]));
  for (int32_t& l : labels)
    l = static_cast<int32_t>(rng() % static_cast<uint64_t>(shape[1]));
  const ir::TensorId label_t =
      graph.add_parameter(graph.unique_name("labels"), TensorRole::Label, DType::I32, {shape[0]},
                          std::make_shared<const ir::HostArray>(std::move(labels)));
  const ir::Attrs mean{{"reduction", std::string("mean")}};
  if (logits.size() == 1) {
    const ir::TensorId loss = graph.add(ir::OpType::SoftmaxCe, graph.unique_name("loss"),
                                        ir::OpCategory::Forward, {logits[0], label_t}, mean);
    graph.set_loss(loss);
    graph.mark_output(loss);
    return;
  }
  const double weight = options.aux_loss_weight >= 0.0 ? options.aux_loss_weight
                        : logits.size() == 2           ? kDefaultAuxWeightOneHead
                                                       : kDefaultAuxWeightTwoHeads;
  // Named after the outputs ("loss/logits", "loss/aux_logits2.weighted"); the sum is "loss".
  auto term = [&](size_t i) {
    const std::string name = "loss/" + output_names[i];
    return graph.add(ir::OpType::SoftmaxCe, graph.unique_name(name), ir::OpCategory::Forward,
                     {logits[i], label_t}, mean);
  };
  ir::TensorId total = term(0);
  std::vector<ir::TensorId> weighted;
  for (size_t i = 1; i < logits.size(); ++i) {
    const ir::TensorId aux = term(i);
    weighted.push_back(graph.add(ir::OpType::Scale,
                                 graph.unique_name(graph.tensor(aux).name + ".weighted"),
                                 ir::OpCategory::Forward, {aux}, ir::Attrs{{"alpha", weight}}));
  }
  for (size_t i = 0; i < weighted.size(); ++i)
    total = graph.add(ir::OpType::Add,
                      graph.unique_name(i + 1 == weighted.size() ? "loss" : "loss.partial"),
                      ir::OpCategory::Forward, {total, weighted[i]});
  graph.set_loss(total);
  graph.mark_output(total);
}

// Token ids in [0, vocabulary), reproducible from the seed, where the vocabulary is the
// smallest table an embedding reads them from; or options.token_ids_npy's. Ids no embedding
// reads are an error.
void draw_token_ids(ImportContext& ctx, ir::TensorId ids, const OnnxImportOptions& options) {
  ir::Graph& g = ctx.graph();
  int64_t vocab = 0;
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& op = g.op(ir::OpId(i));
    if (op.type == ir::OpType::Embedding && op.inputs[1] == ids) {
      const int64_t rows = g.tensor(op.inputs[0]).shape[0];
      vocab = vocab == 0 ? rows : std::min(vocab, rows);
    }
  }
  if (vocab == 0)
    ctx.fail("input '" + g.tensor(ids).name +
             "' holds token ids but no embedding (Gather from a weight table) reads them");
  if (!options.token_ids_npy.empty()) {  // the batch given (s2c --input)
    g.mutable_data(g.tensor(ids).data).init = std::make_shared<const ir::HostArray>(
        io::read_npy_expect(options.token_ids_npy, DType::I32, g.tensor(ids).shape));
    return;
  }
  std::mt19937_64 rng(~options.seed);
  std::vector<int32_t> values(static_cast<size_t>(g.tensor(ids).numel()));
  for (int32_t& v : values)
    v = static_cast<int32_t>(rng() % static_cast<uint64_t>(vocab));
  g.mutable_data(g.tensor(ids).data).init =
      std::make_shared<const ir::HostArray>(std::move(values));
}

// A language model's loss, as the zoo's gpt builds it: the logits [N,T,vocab] as rows
// [N*T,vocab] against next-token labels (each sequence's ids shifted by one, -100, ignored,
// at its last position), the mean over the labelled tokens.
void add_lm_loss(ImportContext& ctx, ir::TensorId ids) {
  ir::Graph& g = ctx.graph();
  const auto& outputs = ctx.onnx_graph().output();
  if (outputs.size() != 1)
    ctx.fail("the graph has " + std::to_string(outputs.size()) +
             " outputs; a language model (token ids in) has one, the logits [N,T,vocab]");
  const std::string what = "output '" + outputs[0].name() + "'";
  const ir::TensorId logits = ctx.lookup(outputs[0].name());
  if (!logits.valid()) ctx.fail(what + " is not computed by any node");
  const ir::Shape id_shape = g.tensor(ids).shape;
  const ir::Shape shape = g.tensor(logits).shape;
  if (g.tensor(logits).dtype != DType::F32 || shape.size() != 3 || shape[0] != id_shape[0] ||
      shape[1] != id_shape[1])
    ctx.fail(what + " is " + ir::shape_text(g.tensor(logits).dtype, shape) +
             "; a language model's logits must be [N,T,vocab] for token ids " +
             ir::shape_text(DType::I32, id_shape));
  const std::vector<int32_t>& from = g.data(g.tensor(ids).data).init->i32();
  const auto t = static_cast<size_t>(id_shape[1]);
  std::vector<int32_t> labels(from.size());
  for (size_t k = 0; k < labels.size(); ++k)
    labels[k] = k % t + 1 < t ? from[k + 1] : -100;
  const ir::TensorId label_t =
      g.add_parameter(g.unique_name("labels"), TensorRole::Label, DType::I32, id_shape,
                      std::make_shared<const ir::HostArray>(std::move(labels)));
  const int64_t rows = id_shape[0] * id_shape[1];
  const ir::TensorId flat_logits =
      g.add(ir::OpType::Reshape, g.unique_name("lm_head.rows"), ir::OpCategory::Forward, {logits},
            ir::Attrs{{"shape", ir::Shape{rows, shape[2]}}});
  const ir::TensorId flat_labels =
      g.add(ir::OpType::Reshape, g.unique_name("labels.flat"), ir::OpCategory::Forward, {label_t},
            ir::Attrs{{"shape", ir::Shape{rows}}});
  const ir::TensorId loss = g.add(ir::OpType::SoftmaxCe, g.unique_name("loss"),
                                  ir::OpCategory::Forward, {flat_logits, flat_labels});
  g.set_loss(loss);
  g.mark_output(loss);
}

// softmax(bmm(scale(q, a), k)) as nn.MultiheadAttention exports it (q / sqrt(d) before the
// product) becomes softmax(bmm(q, k)) with scale = a, the form the zoo builds: one PPU pass
// over q (and its gradient's) fewer per attention. When a is a power of two (every head
// width that is one) both forms round identically; otherwise only the order of two roundings
// differs. The scale left without a reader is removed with the dead code.
void absorb_score_scales(ir::Graph& g) {
  const std::vector<std::vector<ir::OpId>> readers = g.consumers();
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& softmax = g.op(ir::OpId(i));
    if (softmax.type != ir::OpType::Softmax || softmax.attrs.f("scale") != 1.0 ||
        (softmax.inputs.size() > 1 && softmax.inputs[1].valid()))
      continue;
    const ir::TensorId scores = softmax.inputs[0];
    const ir::OpId bmm = g.tensor(scores).producer;
    if (!bmm.valid() || g.op(bmm).type != ir::OpType::Bmm || readers[scores.index()].size() != 1)
      continue;
    const ir::TensorId q = g.op(bmm).inputs[0];
    const ir::OpId scale = g.tensor(q).producer;
    if (!scale.valid() || g.op(scale).type != ir::OpType::Scale ||
        g.op(scale).attrs.f("beta") != 0.0 || readers[q.index()].size() != 1)
      continue;
    const double alpha = g.op(scale).attrs.f("alpha");
    g.mutable_op(bmm).inputs[0] = g.op(scale).inputs[0];
    g.mutable_op(ir::OpId(i)).attrs.set("scale", alpha);
  }
}

std::string graph_name(const std::string& path) {
  const std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() ? "onnx" : stem;
}

}  // namespace

ir::Graph import_onnx(const std::string& path, const OnnxImportOptions& options) {
  const ModelFile file = load_model_file(path);
  ir::Graph graph(graph_name(path));
  ImportContext ctx(file, graph, options.seed);
  const ir::TensorId input = import_input(ctx, options);
  import_initializers(ctx);
  translate_nodes(ctx);
  absorb_score_scales(graph);
  if (graph.tensor(input).dtype == DType::I32) {
    if (options.num_classes > 0 || options.aux_loss_weight >= 0.0)
      ctx.fail(
          "the input holds token ids (a language model); --classes and --aux-loss-weight "
          "do not apply");
    draw_token_ids(ctx, input, options);
    add_lm_loss(ctx, input);
  } else {
    std::vector<std::string> output_names;
    for (const onnx::ValueInfoProto& out : ctx.onnx_graph().output())
      output_names.push_back(out.name());
    add_loss(graph, find_logits(ctx, graph.tensor(input).shape[0], options), output_names, options);
  }
  ir::verify_or_throw(graph, "ONNX import of '" + path + "'");
  return graph;
}

}  // namespace s2::onnx_import
