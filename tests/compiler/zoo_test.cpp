// The model zoo: topologies (op counts), torchvision's parameter names and shapes, roles,
// deterministic initialisation, and the errors for bad names and impossible sizes.
#include "compiler/zoo/zoo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compiler/autodiff/autodiff.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/verifier.h"
#include "compiler/zoo/init_rng.h"
#include "compiler/zoo/model_builder.h"
#include "isa/common/errors.h"

namespace s2::zoo {
namespace {

using ir::Graph;
using ir::Shape;
using ir::TensorId;
using ir::TensorRole;

ModelOptions options(int64_t batch, int64_t channels, int64_t hw, int64_t classes = 10) {
  ModelOptions o;
  o.batch = batch;
  o.channels = channels;
  o.height = o.width = hw;
  o.classes = classes;
  return o;
}

// A language model's options: the preset's shape but for these.
ModelOptions lm_options(int64_t batch, int64_t layers, int64_t seq_len) {
  ModelOptions o;
  o.batch = batch;
  o.lm.layers = layers;
  o.lm.seq_len = seq_len;
  return o;
}

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> counts;
  for (size_t i = 0; i < g.num_ops(); ++i)
    ++counts[std::string(ir::op_type_name(g.op(ir::OpId(i)).type))];
  return counts;
}

// Parameters (tensors no op produces) with the given role, in creation order.
std::vector<std::pair<std::string, Shape>> parameters(const Graph& g, TensorRole role) {
  std::vector<std::pair<std::string, Shape>> out;
  for (size_t i = 0; i < g.num_tensors(); ++i) {
    const ir::Tensor& t = g.tensor(TensorId(i));
    if (!t.producer.valid() && g.data(t.data).role == role) out.emplace_back(t.name, t.shape);
  }
  return out;
}

const std::vector<float>& init_f32(const Graph& g, const std::string& name) {
  const TensorId t = g.find_tensor(name);
  EXPECT_TRUE(t.valid()) << name;
  return g.data(g.tensor(t).data).init->f32();
}

std::string user_error(const std::string& model, const ModelOptions& o) {
  try {
    build_model(model, o);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Zoo, ListsEveryModel) {
  EXPECT_EQ(model_registry().names(),
            (std::vector<std::string>{"mlp", "lenet5", "resnet18", "resnet34", "resnet50", "vgg11",
                                      "mobilenet_v2", "efficientnet_b0", "densenet121", "gpt",
                                      "gpt2-small", "bert", "bert-base", "vit", "vit_b_16"}));
}

// Each model builds at small sizes (the smallest it takes, where that is cheap), verifies, and
// becomes a training step.
TEST(Zoo, EveryModelBuildsAtSmallSizesAndDifferentiates) {
  const std::map<std::string, ModelOptions> small = {
      {"mlp", options(2, 1, 1, 2)},        {"lenet5", options(2, 1, 16)},
      {"resnet18", options(2, 3, 1)},      {"resnet34", options(2, 1, 8)},
      {"resnet50", options(2, 3, 8)},      {"vgg11", options(1, 3, 224, 3)},
      {"mobilenet_v2", options(2, 3, 1)},  {"efficientnet_b0", options(1, 3, 33)},
      {"densenet121", options(2, 3, 29)},  {"gpt", options(2, 3, 32)},
      {"gpt2-small", lm_options(1, 1, 8)}, {"bert", lm_options(2, 1, 8)},
      {"bert-base", lm_options(1, 1, 8)},  {"vit", options(2, 3, 16)},
      {"vit_b_16", options(1, 3, 32)}};
  ASSERT_EQ(small.size(), model_registry().names().size());
  for (const auto& [name, o] : small) {
    SCOPED_TRACE(name);
    Graph g = build_model(name, o);
    EXPECT_EQ(g.name(), name);
    EXPECT_TRUE(ir::verify_graph(g).empty());
    ASSERT_TRUE(g.loss().valid());
    EXPECT_EQ(g.tensor(g.loss()).name, "loss");
    EXPECT_EQ(g.op(g.tensor(g.loss()).producer).type, ir::OpType::SoftmaxCe);
    if (name == "vgg11") continue;  // 133M weights: the step adds as much optimizer state
    const ir::AutodiffStats stats = ir::build_training_step(g, ir::OptimizerOptions{});
    EXPECT_EQ(stats.updates, parameters(g, TensorRole::Weight).size());
    EXPECT_TRUE(ir::verify_graph(g).empty());
  }
}

TEST(Zoo, OpCountsPerModel) {
  using Counts = std::map<std::string, int>;
  // resnet18: 1 stem conv + 2 per basic block (8) + 3 downsamples; relu: stem + 2 per block.
  EXPECT_EQ(op_counts(build_model("resnet18", options(2, 3, 32))), (Counts{{"conv2d", 20},
                                                                           {"batch_norm", 20},
                                                                           {"relu", 17},
                                                                           {"add", 8},
                                                                           {"max_pool2d", 1},
                                                                           {"avg_pool2d", 1},
                                                                           {"reshape", 1},
                                                                           {"gemm", 1},
                                                                           {"softmax_ce", 1}}));
  // resnet34: 16 basic blocks.
  EXPECT_EQ(op_counts(build_model("resnet34", options(2, 3, 32))), (Counts{{"conv2d", 36},
                                                                           {"batch_norm", 36},
                                                                           {"relu", 33},
                                                                           {"add", 16},
                                                                           {"max_pool2d", 1},
                                                                           {"avg_pool2d", 1},
                                                                           {"reshape", 1},
                                                                           {"gemm", 1},
                                                                           {"softmax_ce", 1}}));
  // resnet50: 16 bottlenecks of 3 convs, 4 downsamples (layer1's too: 64 -> 256 channels).
  EXPECT_EQ(op_counts(build_model("resnet50", options(2, 3, 32))), (Counts{{"conv2d", 53},
                                                                           {"batch_norm", 53},
                                                                           {"relu", 49},
                                                                           {"add", 16},
                                                                           {"max_pool2d", 1},
                                                                           {"avg_pool2d", 1},
                                                                           {"reshape", 1},
                                                                           {"gemm", 1},
                                                                           {"softmax_ce", 1}}));
  // vgg11 at 224: 7x7 features, so the adaptive pool is an identity and adds no op.
  // The classifier's two dropouts: a mask and a product each.
  EXPECT_EQ(op_counts(build_model("vgg11", options(1, 3, 224))), (Counts{{"conv2d", 8},
                                                                         {"relu", 10},
                                                                         {"dropout_mask", 2},
                                                                         {"mul", 2},
                                                                         {"max_pool2d", 5},
                                                                         {"reshape", 1},
                                                                         {"gemm", 3},
                                                                         {"softmax_ce", 1}}));
  // mobilenet_v2: stem + 17 blocks (16 with an expansion: 3 convs, the first 2) + last conv;
  // ReLU6 after every conv but the projections; 10 residual adds; the classifier's dropout
  // (its mask and the product).
  EXPECT_EQ(op_counts(build_model("mobilenet_v2", options(2, 3, 32))), (Counts{{"conv2d", 52},
                                                                               {"batch_norm", 52},
                                                                               {"activation", 35},
                                                                               {"add", 10},
                                                                               {"avg_pool2d", 1},
                                                                               {"reshape", 1},
                                                                               {"dropout_mask", 1},
                                                                               {"mul", 1},
                                                                               {"gemm", 1},
                                                                               {"softmax_ce", 1}}));
  // efficientnet_b0: 16 MBConv blocks (15 with an expansion), each with squeeze-excitation
  // (pool, 2 convs, SiLU and sigmoid, a gate times the map, broadcast by an expand except on
  // the 5 blocks whose map is 1x1 at 32x32); stochastic depth on the 9 blocks with a residual
  // add, each a per-sample mask broadcast ([N,1,1,1] expanded) times the block.
  EXPECT_EQ(op_counts(build_model("efficientnet_b0", options(2, 3, 32))),
            (Counts{{"conv2d", 81},
                    {"batch_norm", 49},
                    {"activation", 65},
                    {"add", 9},
                    {"avg_pool2d", 17},
                    {"expand", 20},
                    {"mul", 26},
                    {"dropout_mask", 10},
                    {"reshape", 1},
                    {"gemm", 1},
                    {"softmax_ce", 1}}));
  // densenet121: stem conv, 58 dense layers of 2 convs, 3 transitions; norm5 and its ReLU;
  // every layer but each block's first reads a concat, and each block ends in one (58 - 4 + 4).
  EXPECT_EQ(op_counts(build_model("densenet121", options(2, 3, 32))), (Counts{{"conv2d", 120},
                                                                              {"batch_norm", 121},
                                                                              {"relu", 121},
                                                                              {"concat", 58},
                                                                              {"max_pool2d", 1},
                                                                              {"avg_pool2d", 4},
                                                                              {"reshape", 1},
                                                                              {"gemm", 1},
                                                                              {"softmax_ce", 1}}));
  EXPECT_EQ(op_counts(build_model("lenet5", options(2, 3, 32))), (Counts{{"conv2d", 2},
                                                                         {"relu", 4},
                                                                         {"max_pool2d", 2},
                                                                         {"reshape", 1},
                                                                         {"gemm", 3},
                                                                         {"softmax_ce", 1}}));
  EXPECT_EQ(op_counts(build_model("mlp", options(2, 3, 32))),
            (Counts{{"reshape", 1}, {"gemm", 3}, {"relu", 2}, {"softmax_ce", 1}}));
}

// torchvision.models.resnet18().named_parameters(): names, order and shapes.
TEST(Zoo, Resnet18HasTorchvisionParameters) {
  const std::vector<std::pair<std::string, Shape>> expected = {
      {"conv1.weight", {64, 3, 7, 7}},
      {"bn1.weight", {64}},
      {"bn1.bias", {64}},
      {"layer1.0.conv1.weight", {64, 64, 3, 3}},
      {"layer1.0.bn1.weight", {64}},
      {"layer1.0.bn1.bias", {64}},
      {"layer1.0.conv2.weight", {64, 64, 3, 3}},
      {"layer1.0.bn2.weight", {64}},
      {"layer1.0.bn2.bias", {64}},
      {"layer1.1.conv1.weight", {64, 64, 3, 3}},
      {"layer1.1.bn1.weight", {64}},
      {"layer1.1.bn1.bias", {64}},
      {"layer1.1.conv2.weight", {64, 64, 3, 3}},
      {"layer1.1.bn2.weight", {64}},
      {"layer1.1.bn2.bias", {64}},
      {"layer2.0.conv1.weight", {128, 64, 3, 3}},
      {"layer2.0.bn1.weight", {128}},
      {"layer2.0.bn1.bias", {128}},
      {"layer2.0.conv2.weight", {128, 128, 3, 3}},
      {"layer2.0.bn2.weight", {128}},
      {"layer2.0.bn2.bias", {128}},
      {"layer2.0.downsample.0.weight", {128, 64, 1, 1}},
      {"layer2.0.downsample.1.weight", {128}},
      {"layer2.0.downsample.1.bias", {128}},
      {"layer2.1.conv1.weight", {128, 128, 3, 3}},
      {"layer2.1.bn1.weight", {128}},
      {"layer2.1.bn1.bias", {128}},
      {"layer2.1.conv2.weight", {128, 128, 3, 3}},
      {"layer2.1.bn2.weight", {128}},
      {"layer2.1.bn2.bias", {128}},
      {"layer3.0.conv1.weight", {256, 128, 3, 3}},
      {"layer3.0.bn1.weight", {256}},
      {"layer3.0.bn1.bias", {256}},
      {"layer3.0.conv2.weight", {256, 256, 3, 3}},
      {"layer3.0.bn2.weight", {256}},
      {"layer3.0.bn2.bias", {256}},
      {"layer3.0.downsample.0.weight", {256, 128, 1, 1}},
      {"layer3.0.downsample.1.weight", {256}},
      {"layer3.0.downsample.1.bias", {256}},
      {"layer3.1.conv1.weight", {256, 256, 3, 3}},
      {"layer3.1.bn1.weight", {256}},
      {"layer3.1.bn1.bias", {256}},
      {"layer3.1.conv2.weight", {256, 256, 3, 3}},
      {"layer3.1.bn2.weight", {256}},
      {"layer3.1.bn2.bias", {256}},
      {"layer4.0.conv1.weight", {512, 256, 3, 3}},
      {"layer4.0.bn1.weight", {512}},
      {"layer4.0.bn1.bias", {512}},
      {"layer4.0.conv2.weight", {512, 512, 3, 3}},
      {"layer4.0.bn2.weight", {512}},
      {"layer4.0.bn2.bias", {512}},
      {"layer4.0.downsample.0.weight", {512, 256, 1, 1}},
      {"layer4.0.downsample.1.weight", {512}},
      {"layer4.0.downsample.1.bias", {512}},
      {"layer4.1.conv1.weight", {512, 512, 3, 3}},
      {"layer4.1.bn1.weight", {512}},
      {"layer4.1.bn1.bias", {512}},
      {"layer4.1.conv2.weight", {512, 512, 3, 3}},
      {"layer4.1.bn2.weight", {512}},
      {"layer4.1.bn2.bias", {512}},
      {"fc.weight", {1000, 512}},
      {"fc.bias", {1000}},
  };
  ASSERT_EQ(expected.size(), 62u);
  const Graph g = build_model("resnet18", options(2, 3, 32, 1000));
  EXPECT_EQ(parameters(g, TensorRole::Weight), expected);

  // Every batch norm (the tensors named *.bias that follow a *.weight of rank 1) has its
  // running statistics as State, in state_dict order.
  std::vector<std::pair<std::string, Shape>> stats;
  for (const auto& [name, shape] : expected) {
    const std::string suffix = ".bias";
    if (shape.size() != 1 || name == "fc.bias" || name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string module = name.substr(0, name.size() - suffix.size());
    stats.push_back({module + ".running_mean", shape});
    stats.push_back({module + ".running_var", shape});
  }
  EXPECT_EQ(stats.size(), 40u);
  EXPECT_EQ(parameters(g, TensorRole::State), stats);
}

TEST(Zoo, VggAndSmallModelsUseStateDictNames) {
  auto names = [](const Graph& g) {
    std::vector<std::string> v;
    for (const auto& p : parameters(g, TensorRole::Weight))
      v.push_back(p.first);
    return v;
  };
  EXPECT_EQ(
      names(build_model("vgg11", options(1, 3, 224))),
      (std::vector<std::string>{
          "features.0.weight",   "features.0.bias",   "features.3.weight",   "features.3.bias",
          "features.6.weight",   "features.6.bias",   "features.8.weight",   "features.8.bias",
          "features.11.weight",  "features.11.bias",  "features.13.weight",  "features.13.bias",
          "features.16.weight",  "features.16.bias",  "features.18.weight",  "features.18.bias",
          "classifier.0.weight", "classifier.0.bias", "classifier.3.weight", "classifier.3.bias",
          "classifier.6.weight", "classifier.6.bias"}));
  const Graph lenet = build_model("lenet5", options(2, 1, 32, 7));
  EXPECT_EQ(parameters(lenet, TensorRole::Weight),
            (std::vector<std::pair<std::string, Shape>>{{"conv1.weight", {6, 1, 5, 5}},
                                                        {"conv1.bias", {6}},
                                                        {"conv2.weight", {16, 6, 5, 5}},
                                                        {"conv2.bias", {16}},
                                                        {"fc1.weight", {120, 400}},
                                                        {"fc1.bias", {120}},
                                                        {"fc2.weight", {84, 120}},
                                                        {"fc2.bias", {84}},
                                                        {"fc3.weight", {7, 84}},
                                                        {"fc3.bias", {7}}}));
  const Graph mlp = build_model("mlp", options(2, 3, 4, 5));
  EXPECT_EQ(parameters(mlp, TensorRole::Weight),
            (std::vector<std::pair<std::string, Shape>>{{"fc1.weight", {256, 48}},
                                                        {"fc1.bias", {256}},
                                                        {"fc2.weight", {128, 256}},
                                                        {"fc2.bias", {128}},
                                                        {"fc3.weight", {5, 128}},
                                                        {"fc3.bias", {5}}}));
}

// The three torchvision models of issue 14: their state_dict (every weight and batch-norm
// statistic, in torchvision's order) is checked name by name and shape by shape against
// PyTorch by TorchSim.*ZooMatchesPyTorch; here the counts, the ends and the grouped shapes.
TEST(Zoo, MobileModelsAndDensenetUseTorchvisionStateDictNames) {
  struct Expected {
    const char* model;
    size_t weights, state;  // torchvision's parameters and buffers (num_batches_tracked aside)
    std::vector<std::pair<std::string, Shape>> some;
  };
  const std::vector<Expected> expected = {
      {"mobilenet_v2",
       158,
       104,
       {{"features.0.0.weight", {32, 3, 3, 3}},
        {"features.1.conv.0.0.weight", {32, 1, 3, 3}},  // depthwise, no expansion
        {"features.1.conv.1.weight", {16, 32, 1, 1}},
        {"features.2.conv.1.0.weight", {96, 1, 3, 3}},
        {"features.17.conv.3.weight", {320}},
        {"features.18.0.weight", {1280, 320, 1, 1}},
        {"classifier.1.weight", {10, 1280}}}},
      {"efficientnet_b0",
       213,
       98,
       {{"features.1.0.block.0.0.weight", {32, 1, 3, 3}},
        {"features.1.0.block.1.fc1.weight", {8, 32, 1, 1}},
        {"features.1.0.block.1.fc1.bias", {8}},
        {"features.3.0.block.1.0.weight", {144, 1, 5, 5}},
        {"features.7.0.block.2.fc2.weight", {1152, 48, 1, 1}},
        {"features.8.1.bias", {1280}},
        {"classifier.1.bias", {10}}}},
      {"densenet121",
       364,
       242,
       {{"features.conv0.weight", {64, 3, 7, 7}},
        {"features.denseblock1.denselayer6.norm1.weight", {224}},
        {"features.denseblock1.denselayer6.conv2.weight", {32, 128, 3, 3}},
        {"features.transition3.conv.weight", {512, 1024, 1, 1}},
        {"features.denseblock4.denselayer16.conv1.weight", {128, 992, 1, 1}},
        {"features.norm5.bias", {1024}},
        {"classifier.weight", {10, 1024}}}}};
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.model);
    const Graph g = build_model(e.model, options(2, 3, 32));
    const auto weights = parameters(g, TensorRole::Weight);
    EXPECT_EQ(weights.size(), e.weights);
    // The statistics and dropout's step counters are State.
    size_t stats = 0;
    for (const auto& [name, shape] : parameters(g, TensorRole::State))
      stats += name.find(".running_") != std::string::npos;
    EXPECT_EQ(stats, e.state);
    for (const auto& [name, shape] : e.some) {
      const TensorId t = g.find_tensor(name);
      ASSERT_TRUE(t.valid()) << name;
      EXPECT_EQ(g.tensor(t).shape, shape) << name;
    }
  }
}

// Depthwise convolutions carry their groups; dropout and stochastic depth draw masks named
// after their modules, which the dumps and scripts/torch_reference.py use.
TEST(Zoo, MobileModelsDrawTheirMasksOnTheAccelerator) {
  const Graph mv2 = build_model("mobilenet_v2", options(2, 3, 32));
  EXPECT_EQ(mv2.op(mv2.find_op("features.2.conv.1.0")).attrs.i("groups"), 96);
  EXPECT_EQ(mv2.op(mv2.find_op("features.2.conv.1.0")).attrs.ints("stride"),
            (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(mv2.op(mv2.find_op("features.2.conv.1.2")).attrs.s("act"), "relu6");
  const ir::Op& mask = mv2.op(mv2.find_op("classifier.0.mask"));
  EXPECT_EQ(mask.type, ir::OpType::DropoutMask);
  EXPECT_DOUBLE_EQ(mask.attrs.f("ratio"), 0.2);

  const Graph eb0 = build_model("efficientnet_b0", options(4, 3, 32));
  // Block k of 16 drops its residual branch with probability 0.2 k / 16, per sample; the
  // first block of a stage (stride or width change) has no residual and no stochastic depth.
  EXPECT_FALSE(eb0.find_op("features.2.0.stochastic_depth.mask").valid());
  const ir::Op& sd = eb0.op(eb0.find_op("features.2.1.stochastic_depth.mask"));
  EXPECT_DOUBLE_EQ(sd.attrs.f("ratio"), 0.2 * 2 / 16);
  EXPECT_EQ(sd.attrs.ints("shape"), (std::vector<int64_t>{4, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(eb0.op(eb0.find_op("features.6.3.stochastic_depth.mask")).attrs.f("ratio"),
                   0.2 * 14 / 16);
  EXPECT_FALSE(eb0.find_op("features.7.0.stochastic_depth.mask").valid());
  EXPECT_EQ(eb0.op(eb0.find_op("features.4.2.block.2.scale_activation")).attrs.s("act"), "sigmoid");
}

TEST(Zoo, OpsAreNamedByModulePath) {
  const Graph g = build_model("resnet50", options(2, 3, 32));
  for (const char* name :
       {"conv1", "bn1", "relu", "maxpool", "layer1.0.conv1", "layer1.0.relu", "layer1.0.relu_2",
        "layer1.0.relu_3", "layer1.0.add", "layer1.0.downsample.0", "layer1.0.downsample.1",
        "layer4.2.conv3", "avgpool", "flatten", "fc", "loss"})
    EXPECT_TRUE(g.find_op(name).valid()) << name;
  // The bottleneck strides on its 3x3 conv (torchvision v1.5), not on the 1x1.
  EXPECT_EQ(g.op(g.find_op("layer2.0.conv1")).attrs.ints("stride"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(g.op(g.find_op("layer2.0.conv2")).attrs.ints("stride"), (std::vector<int64_t>{2, 2}));
  // vgg11 on 448x448: 14x14 features, pooled 2x2 to 7x7.
  const Graph vgg = build_model("vgg11", options(1, 3, 448));
  const ir::Op& pool = vgg.op(vgg.find_op("avgpool"));
  EXPECT_EQ(pool.attrs.ints("kernel"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(vgg.tensor(pool.outputs[0]).shape, (Shape{1, 512, 7, 7}));
  // vgg11 on its default 32x32: 1x1 features; each of the 7x7 adaptive bins is that pixel, so
  // the pool is a stride-0 broadcast copied dense for the flatten.
  const Graph small = build_model("vgg11", options(2, 3, 32));
  const ir::Op& wide = small.op(small.find_op("avgpool"));
  EXPECT_EQ(wide.type, ir::OpType::Expand);
  EXPECT_EQ(small.tensor(wide.outputs[0]).strides, (std::vector<int64_t>{512, 1, 0, 0}));
  const ir::Op& dense = small.op(small.find_op("avgpool.dense"));
  EXPECT_EQ(dense.type, ir::OpType::Copy);
  EXPECT_EQ(small.tensor(dense.outputs[0]).shape, (Shape{2, 512, 7, 7}));
}

// AdaptiveAvgPool2d to any size: uneven and overlapping bins (a 5x5 map to 3x2, a 3x3 map to
// vgg11's 7x7) are a gemm with a constant bin matrix, equal to torch's bins averaged in double.
TEST(Zoo, AdaptiveAveragePoolTakesAnyBins) {
  ModelBuilder b("pool", options(2, 3, 5), "any size");
  const TensorId x = b.input();
  const TensorId y = b.adaptive_avg_pool("pool", x, 3, 2);
  EXPECT_EQ(b.shape(y), (Shape{2, 3, 3, 2}));
  Graph& g = b.graph();
  EXPECT_EQ(g.op(g.find_op("pool")).type, ir::OpType::Gemm);
  ir::Interpreter it(g);
  it.run();
  const std::vector<float>& in = g.data(g.tensor(x).data).init->f32();
  const std::vector<float> out = it.value(y).f32();
  auto begin = [](int64_t i, int64_t n, int64_t s) { return i * s / n; };
  auto end = [](int64_t i, int64_t n, int64_t s) { return ((i + 1) * s + n - 1) / n; };
  for (int64_t plane = 0; plane < 6; ++plane)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        double sum = 0.0;
        int64_t count = 0;
        for (int64_t r = begin(i, 3, 5); r < end(i, 3, 5); ++r)
          for (int64_t c = begin(j, 2, 5); c < end(j, 2, 5); ++c, ++count)
            sum += static_cast<double>(in[static_cast<size_t>(plane * 25 + r * 5 + c)]);
        EXPECT_NEAR(out[static_cast<size_t>(plane * 6 + i * 2 + j)],
                    sum / static_cast<double>(count), 1e-6)
            << "plane " << plane << " bin " << i << "," << j;
      }
  // vgg11 on 96x96 images: a 3x3 map into 7x7 bins of 1 or 2 pixels, overlapping.
  const Graph vgg = build_model("vgg11", options(1, 3, 96));
  const ir::Op& pool = vgg.op(vgg.find_op("avgpool"));
  EXPECT_EQ(pool.type, ir::OpType::Gemm);
  const std::vector<float>& bins = vgg.data(vgg.tensor(pool.inputs[1]).data).init->f32();
  ASSERT_EQ(bins.size(), 49u * 9u);
  // Output (0,1) is pixel (0,0) alone (rows [0,1), columns [0,1)); output (0,2) averages
  // columns [0,2): two pixels of weight 1/2.
  EXPECT_EQ(std::vector<float>(bins.begin() + 9, bins.begin() + 18),
            (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(std::vector<float>(bins.begin() + 18, bins.begin() + 27),
            (std::vector<float>{0.5f, 0.5f, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(Zoo, BatchAndRoles) {
  const Graph g = build_model("resnet18", options(4, 3, 32, 10));
  const ir::Tensor& x = g.tensor(g.find_tensor("input"));
  EXPECT_EQ(x.shape, (Shape{4, 3, 32, 32}));
  EXPECT_EQ(g.data(x.data).role, TensorRole::Input);
  const ir::Tensor& labels = g.tensor(g.find_tensor("labels"));
  EXPECT_EQ(labels.dtype, ir::DType::I32);
  EXPECT_EQ(labels.shape, (Shape{4}));
  EXPECT_EQ(g.data(labels.data).role, TensorRole::Label);
  for (int32_t label : g.data(labels.data).init->i32()) {
    EXPECT_GE(label, 0);
    EXPECT_LT(label, 10);
  }
  EXPECT_EQ(g.data(g.tensor(g.find_tensor("bn1.weight")).data).role, TensorRole::Weight);
  EXPECT_EQ(g.data(g.tensor(g.find_tensor("bn1.running_var")).data).role, TensorRole::State);
}

TEST(Zoo, InitialValuesFollowPyTorchDefaults) {
  const Graph g = build_model("resnet18", options(8, 3, 32, 10));
  // conv1: fan_in 3*7*7 = 147, so U(-1/sqrt(147), 1/sqrt(147)).
  const std::vector<float>& w = init_f32(g, "conv1.weight");
  const float bound = 1.0f / std::sqrt(147.0f);
  const auto [lo, hi] = std::minmax_element(w.begin(), w.end());
  EXPECT_GE(*lo, -bound);
  EXPECT_LE(*hi, bound);
  EXPECT_LT(*lo, -0.95f * bound);  // 9408 draws reach both ends
  EXPECT_GT(*hi, 0.95f * bound);
  // fc: fan_in 512 for weight and bias.
  for (float v : init_f32(g, "fc.bias"))
    EXPECT_LE(std::fabs(v), 1.0f / std::sqrt(512.0f));
  for (float v : init_f32(g, "bn1.weight"))
    EXPECT_EQ(v, 1.0f);
  for (float v : init_f32(g, "bn1.bias"))
    EXPECT_EQ(v, 0.0f);
  for (float v : init_f32(g, "bn1.running_mean"))
    EXPECT_EQ(v, 0.0f);
  for (float v : init_f32(g, "bn1.running_var"))
    EXPECT_EQ(v, 1.0f);
  // The batch ~ N(0, 1): 24576 samples.
  const std::vector<float>& x = init_f32(g, "input");
  double sum = 0.0, sq = 0.0;
  for (float v : x)
    sum += static_cast<double>(v), sq += static_cast<double>(v) * static_cast<double>(v);
  const double mean = sum / static_cast<double>(x.size());
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(sq / static_cast<double>(x.size()) - mean * mean, 1.0, 0.05);
}

TEST(Zoo, InitialValuesAreDeterministicPerSeedAndName) {
  ModelOptions o = options(2, 3, 32);
  const Graph a = build_model("lenet5", o);
  const Graph b = build_model("lenet5", o);
  for (const char* name : {"conv1.weight", "fc3.bias", "input"})
    EXPECT_EQ(init_f32(a, name), init_f32(b, name)) << name;
  // Changing the classes changes only the last layer (each parameter has its own stream).
  o.classes = 7;
  const Graph c = build_model("lenet5", o);
  EXPECT_EQ(init_f32(a, "conv1.weight"), init_f32(c, "conv1.weight"));
  EXPECT_NE(init_f32(a, "fc3.bias").size(), init_f32(c, "fc3.bias").size());
  o.seed = 2;
  const Graph d = build_model("lenet5", o);
  EXPECT_NE(init_f32(a, "conv1.weight"), init_f32(d, "conv1.weight"));
  EXPECT_NE(init_f32(a, "input"), init_f32(d, "input"));
}

TEST(Zoo, UnknownModelListsTheKnownOnes) {
  const std::string e = user_error("resnet19", ModelOptions{});
  EXPECT_NE(e.find("unknown model 'resnet19'"), std::string::npos) << e;
  EXPECT_NE(e.find("mlp, lenet5, resnet18, resnet34, resnet50, vgg11, mobilenet_v2, "
                   "efficientnet_b0, densenet121"),
            std::string::npos)
      << e;
}

TEST(Zoo, ImpossibleSizesSayWhy) {
  std::string e = user_error("lenet5", options(2, 3, 8));
  EXPECT_NE(e.find("the 2x2 feature map entering 'conv2' is smaller than its 5x5 window"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("at least 16x16"), std::string::npos) << e;
  EXPECT_NE(user_error("lenet5", options(2, 3, 15)).find("'pool2'"), std::string::npos);
  EXPECT_NO_THROW(build_model("lenet5", options(2, 3, 16)));

  EXPECT_NO_THROW(build_model("vgg11", options(1, 3, 32)));  // a 1x1 map, broadcast to 7x7
  e = user_error("vgg11", options(1, 3, 16));
  EXPECT_NE(e.find("'features.20'"), std::string::npos) << e;

  // ResNet's padded windows never empty the map, but batch norm needs two values.
  e = user_error("resnet18", options(1, 3, 32));
  EXPECT_NE(e.find("'layer4.0.bn1' would normalise a single value per channel"), std::string::npos)
      << e;
  EXPECT_NO_THROW(build_model("resnet18", options(2, 3, 32)));
  ModelOptions wide = options(1, 3, 32);
  wide.width = 33;
  EXPECT_NO_THROW(build_model("resnet18", wide));

  // DenseNet's transitions pool 2x2 without padding: 29x29 is the smallest image.
  e = user_error("densenet121", options(2, 3, 28));
  EXPECT_NE(e.find("entering 'features.transition3.pool' is smaller than its 2x2 window"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("at least 29x29"), std::string::npos) << e;
  EXPECT_NO_THROW(build_model("densenet121", options(2, 3, 29)));
  e = user_error("mobilenet_v2", options(1, 3, 32));
  EXPECT_NE(e.find("'features.14.conv.1.1' would normalise a single value"), std::string::npos)
      << e;
  EXPECT_NO_THROW(build_model("efficientnet_b0", options(1, 3, 33)));
}

TEST(Zoo, OptionsOutOfRange) {
  ModelOptions o = options(0, 3, 32);
  EXPECT_NE(user_error("mlp", o).find("batch 0 is out of range"), std::string::npos);
  o = options(2, 3, 32, 1);
  EXPECT_NE(user_error("mlp", o).find("classes 1 is out of range"), std::string::npos);
  o = options(2, 3, 32);
  o.height = -1;
  EXPECT_NE(user_error("mlp", o).find("image height -1"), std::string::npos);
  o = options(65536, 3, 65536);
  EXPECT_NE(user_error("mlp", o).find("more than 2^31-1 elements"), std::string::npos);
}

// gpt: GPT-2's blocks, by Hugging Face's state_dict names, the LM head tied to the token
// embedding (no lm_head parameter), the loss over every token with the last one ignored.
TEST(Zoo, GptIsGpt2sLayoutWithATiedHead) {
  ModelOptions o = lm_options(2, 2, 8);
  Graph g = build_model("gpt", o);
  using Counts = std::map<std::string, int>;
  // Per block: 4 Conv1D gemms, 2 bmm, 2 layer norms, 3 q/k/v slices; the merge of the heads
  // is the one copy; 2 residual adds. Plus the embeddings, ln_f, the tied head.
  EXPECT_EQ(op_counts(g), (Counts{{"embedding", 2},
                                  {"expand", 1},
                                  {"add", 5},
                                  {"layer_norm", 5},
                                  {"gemm", 9},
                                  {"bmm", 4},
                                  {"softmax", 2},
                                  {"activation", 2},
                                  {"slice", 6},
                                  {"transpose", 8},
                                  {"copy", 2},
                                  {"reshape", 27},
                                  {"softmax_ce", 1}}));
  const auto weights = parameters(g, TensorRole::Weight);
  std::set<std::string> names;
  for (const auto& [name, shape] : weights)
    names.insert(name);
  for (const char* name :
       {"transformer.wte.weight", "transformer.wpe.weight", "transformer.h.1.ln_1.weight",
        "transformer.h.1.attn.c_attn.weight", "transformer.h.1.attn.c_attn.bias",
        "transformer.h.1.attn.c_proj.weight", "transformer.h.1.mlp.c_fc.weight",
        "transformer.h.1.mlp.c_proj.bias", "transformer.ln_f.bias"})
    EXPECT_EQ(names.count(name), 1u) << name;
  EXPECT_EQ(weights.size(), 2u + 2u * 12u + 2u);
  // Conv1D stores [in, out].
  EXPECT_EQ(g.tensor(g.find_tensor("transformer.h.0.attn.c_attn.weight")).shape,
            (ir::Shape{64, 192}));
  EXPECT_EQ(g.tensor(g.find_tensor("transformer.wpe.weight")).shape, (ir::Shape{32, 64}));
  // The head reads the token embedding itself.
  const ir::Op& head = g.op(g.find_op("lm_head"));
  EXPECT_EQ(g.tensor(head.inputs[1]).name, "transformer.wte.weight");
  EXPECT_EQ(head.attrs.i("trans_b"), 1);
  // Labels: the next token, -100 at the last position of each sequence.
  const auto& ids = g.data(g.tensor(g.find_tensor("input_ids")).data).init->i32();
  const auto& labels = g.data(g.tensor(g.find_tensor("labels")).data).init->i32();
  ASSERT_EQ(ids.size(), 16u);
  ASSERT_EQ(labels.size(), 16u);
  for (size_t k = 0; k < 16; ++k) {
    EXPECT_GE(ids[k], 0);
    EXPECT_LT(ids[k], 128);
    EXPECT_EQ(labels[k], k % 8 == 7 ? -100 : ids[k + 1]) << k;
  }
  const ir::AutodiffStats stats = ir::build_training_step(g, ir::OptimizerOptions{});
  EXPECT_EQ(stats.updates, weights.size());
  EXPECT_TRUE(ir::verify_graph(g).empty());
}

TEST(Zoo, Gpt2SmallIsGpt2sShape) {
  const Graph g = build_model("gpt2-small", lm_options(1, 1, 16));
  EXPECT_EQ(g.tensor(g.find_tensor("transformer.wte.weight")).shape, (ir::Shape{50257, 768}));
  EXPECT_EQ(g.tensor(g.find_tensor("transformer.wpe.weight")).shape, (ir::Shape{1024, 768}));
  EXPECT_EQ(g.tensor(g.find_tensor("input_ids")).shape, (ir::Shape{1, 16}));
  // 12 heads of 64.
  const ir::Op& scores = g.op(g.find_op("transformer.h.0.attn.scores"));
  EXPECT_EQ(g.tensor(scores.outputs[0]).shape, (ir::Shape{1, 12, 16, 16}));
}

TEST(Zoo, BertIsBertsLayoutWithATiedDecoder) {
  Graph g = build_model("bert", lm_options(2, 2, 8));
  using Counts = std::map<std::string, int>;
  // Per layer: 6 dense gemms, 2 bmm, 2 post-norm layer norms, 2 residual adds, GELU; the merge
  // of the heads is the one copy. Plus three embeddings summed and normalised, the head's
  // transform and the tied decoder.
  EXPECT_EQ(op_counts(g), (Counts{{"embedding", 3},
                                  {"expand", 2},
                                  {"add", 6},
                                  {"layer_norm", 6},
                                  {"gemm", 14},
                                  {"bmm", 4},
                                  {"softmax", 2},
                                  {"activation", 3},
                                  {"transpose", 8},
                                  {"copy", 2},
                                  {"reshape", 38},
                                  {"softmax_ce", 1}}));
  const auto weights = parameters(g, TensorRole::Weight);
  std::set<std::string> names;
  for (const auto& [name, shape] : weights)
    names.insert(name);
  for (const char* name :
       {"bert.embeddings.word_embeddings.weight", "bert.embeddings.position_embeddings.weight",
        "bert.embeddings.token_type_embeddings.weight", "bert.embeddings.LayerNorm.bias",
        "bert.encoder.layer.1.attention.self.query.weight",
        "bert.encoder.layer.1.attention.self.value.bias",
        "bert.encoder.layer.1.attention.output.dense.weight",
        "bert.encoder.layer.1.attention.output.LayerNorm.weight",
        "bert.encoder.layer.1.intermediate.dense.weight", "bert.encoder.layer.1.output.dense.bias",
        "bert.encoder.layer.1.output.LayerNorm.bias", "cls.predictions.transform.dense.weight",
        "cls.predictions.transform.LayerNorm.weight", "cls.predictions.bias"})
    EXPECT_EQ(names.count(name), 1u) << name;
  EXPECT_EQ(weights.size(), 5u + 2u * 16u + 5u);
  // nn.Linear stores [out, in].
  EXPECT_EQ(g.tensor(g.find_tensor("bert.encoder.layer.0.intermediate.dense.weight")).shape,
            (ir::Shape{256, 64}));
  EXPECT_EQ(g.tensor(g.find_tensor("bert.embeddings.token_type_embeddings.weight")).shape,
            (ir::Shape{2, 64}));
  // No causal mask; the decoder reads the word embedding itself, with its own bias.
  EXPECT_EQ(g.op(g.find_op("bert.encoder.layer.0.attention.self.softmax")).attrs.i("causal"), 0);
  const ir::Op& decoder = g.op(g.find_op("cls.predictions.decoder"));
  EXPECT_EQ(g.tensor(decoder.inputs[1]).name, "bert.embeddings.word_embeddings.weight");
  EXPECT_EQ(g.tensor(decoder.inputs[2]).name, "cls.predictions.bias");
  EXPECT_EQ(decoder.attrs.i("trans_b"), 1);
  // Masked-LM labels: the original id where the input holds [MASK] (vocab - 1), else -100.
  const auto& ids = g.data(g.tensor(g.find_tensor("input_ids")).data).init->i32();
  const auto& labels = g.data(g.tensor(g.find_tensor("labels")).data).init->i32();
  ASSERT_EQ(ids.size(), 16u);
  size_t masked = 0;
  for (size_t k = 0; k < 16; ++k) {
    if (labels[k] == -100) continue;
    ++masked;
    EXPECT_EQ(ids[k], 127) << k;
    EXPECT_GE(labels[k], 0);
    EXPECT_LT(labels[k], 128);
  }
  EXPECT_GE(masked, 1u);
  EXPECT_LE(masked, 8u);
  const ir::AutodiffStats stats = ir::build_training_step(g, ir::OptimizerOptions{});
  EXPECT_EQ(stats.updates, weights.size());
  EXPECT_TRUE(ir::verify_graph(g).empty());
}

TEST(Zoo, BertBaseIsBertBasesShape) {
  const Graph g = build_model("bert-base", lm_options(1, 1, 16));
  EXPECT_EQ(g.tensor(g.find_tensor("bert.embeddings.word_embeddings.weight")).shape,
            (ir::Shape{30522, 768}));
  EXPECT_EQ(g.tensor(g.find_tensor("bert.embeddings.position_embeddings.weight")).shape,
            (ir::Shape{512, 768}));
  const ir::Op& scores = g.op(g.find_op("bert.encoder.layer.0.attention.self.scores"));
  EXPECT_EQ(g.tensor(scores.outputs[0]).shape, (ir::Shape{1, 12, 16, 16}));
}

TEST(Zoo, VitIsTorchvisionsVisionTransformer) {
  ModelOptions o = options(2, 3, 32);
  Graph g = build_model("vit", o);
  const auto weights = parameters(g, TensorRole::Weight);
  std::map<std::string, ir::Shape> shapes(weights.begin(), weights.end());
  // torchvision's state_dict: 4 + 12 per layer + 4.
  EXPECT_EQ(weights.size(), 4u + 2u * 12u + 4u);
  EXPECT_EQ(shapes["conv_proj.weight"], (ir::Shape{64, 3, 8, 8}));
  EXPECT_EQ(shapes["class_token"], (ir::Shape{1, 1, 64}));
  EXPECT_EQ(shapes["encoder.pos_embedding"], (ir::Shape{1, 17, 64}));  // 4x4 patches + class
  EXPECT_EQ(shapes["encoder.layers.encoder_layer_1.self_attention.in_proj_weight"],
            (ir::Shape{192, 64}));
  EXPECT_EQ(shapes["encoder.layers.encoder_layer_1.self_attention.out_proj.bias"], (ir::Shape{64}));
  EXPECT_EQ(shapes["encoder.layers.encoder_layer_1.mlp.0.weight"], (ir::Shape{256, 64}));
  EXPECT_EQ(shapes["encoder.layers.encoder_layer_1.mlp.3.weight"], (ir::Shape{64, 256}));
  EXPECT_EQ(shapes["encoder.ln.weight"], (ir::Shape{64}));
  EXPECT_EQ(shapes["heads.head.weight"], (ir::Shape{10, 64}));
  // The patch embedding is a stride-8 8x8 conv; the attention has no causal mask.
  const ir::Op& conv = g.op(g.find_op("conv_proj"));
  EXPECT_EQ(conv.attrs.ints("stride"), (std::vector<int64_t>{8, 8}));
  const ir::Op& scores = g.op(g.find_op("encoder.layers.encoder_layer_0.self_attention.scores"));
  EXPECT_EQ(g.tensor(scores.outputs[0]).shape, (ir::Shape{2, 4, 17, 17}));
  EXPECT_EQ(
      g.op(g.find_op("encoder.layers.encoder_layer_0.self_attention.softmax")).attrs.i("causal"),
      0);
  const ir::AutodiffStats stats = ir::build_training_step(g, ir::OptimizerOptions{});
  EXPECT_EQ(stats.updates, weights.size());
  EXPECT_TRUE(ir::verify_graph(g).empty());
  // vit_b_16 at 224x224: 14x14 patches of 768.
  const Graph base = build_model("vit_b_16", options(1, 3, 224, 1000));
  EXPECT_EQ(base.tensor(base.find_tensor("encoder.pos_embedding")).shape, (ir::Shape{1, 197, 768}));
  EXPECT_EQ(base.tensor(base.find_tensor("encoder.layers.encoder_layer_11.mlp.0.weight")).shape,
            (ir::Shape{3072, 768}));
}

TEST(Zoo, VitShapesAreChecked) {
  ModelOptions o = options(2, 3, 36);
  EXPECT_NE(user_error("vit", o).find("takes square images whose side is a multiple of the "
                                      "8-pixel patch (--patch), not 36x36"),
            std::string::npos);
  o = options(2, 3, 32);
  o.width = 16;
  EXPECT_NE(user_error("vit", o).find("not 32x16"), std::string::npos);
  o = options(2, 3, 32);
  o.vit.patch = 4;
  o.vit.heads = 3;
  EXPECT_NE(user_error("vit", o).find("width 64 is not a multiple of the 3 heads"),
            std::string::npos);
  o = options(2, 3, 32);
  o.lm.seq_len = 8;
  EXPECT_NE(user_error("vit", o).find("is a vision transformer: --seq-len, --vocab and "
                                      "--positions apply to the language models"),
            std::string::npos);
  o = options(2, 3, 32);
  o.vit.patch = 4;
  EXPECT_NE(user_error("resnet18", o).find("is not a vision transformer: --patch applies to vit"),
            std::string::npos);
  // --patch 4 on 32x32 images: 64 patches.
  o = options(2, 3, 32);
  o.vit.patch = 4;
  const Graph g = build_model("vit", o);
  EXPECT_EQ(g.tensor(g.find_tensor("encoder.pos_embedding")).shape, (ir::Shape{1, 65, 64}));
}

TEST(Zoo, LanguageModelShapesAreChecked) {
  ModelOptions o = lm_options(2, 1, 8);
  o.lm.heads = 3;  // 64 wide
  EXPECT_NE(user_error("gpt", o).find("width 64 is not a multiple of the 3 heads"),
            std::string::npos);
  o = lm_options(2, 1, 8);
  o.lm.positions = 4;
  EXPECT_NE(user_error("gpt", o).find("positions 4 is out of range: it must be in [8,"),
            std::string::npos);
  o = lm_options(2, 1, 8);
  o.lm.vocab = 1;
  EXPECT_NE(user_error("gpt", o).find("vocabulary 1 is out of range"), std::string::npos);
  // A longer sequence grows the position table unless --positions fixes it.
  o = lm_options(1, 1, 40);
  const Graph longer = build_model("gpt", o);
  EXPECT_EQ(longer.tensor(longer.find_tensor("transformer.wpe.weight")).shape, (ir::Shape{40, 64}));
  EXPECT_EQ(user_error("resnet18", lm_options(2, 1, 0)),
            "model 'resnet18' is an image model: --layers, --heads, --width, --seq-len, --vocab "
            "and --positions apply to the language models (gpt, gpt2-small, bert, bert-base)");
}

}  // namespace
}  // namespace s2::zoo

namespace s2::zoo {
namespace {

// The ziggurat's normals: mean 0, variance 1, kurtosis 3 and the tail beyond the ziggurat's
// base (R = 3.4426, two-sided mass 5.76e-4) at the rates of the standard normal, over a
// million draws; the same stream gives the same values, another stream others.
TEST(InitRng, NormalValuesAreStandardNormal) {
  const size_t n = 1 << 20;
  const std::vector<float> v = normal_values(7, "w", n);
  double sum = 0.0, sq = 0.0, fourth = 0.0;
  size_t tail = 0, beyond_one = 0;
  for (float x : v) {
    const double d = x;
    sum += d;
    sq += d * d;
    fourth += d * d * d * d;
    if (std::abs(d) > 3.442619855899) ++tail;
    if (std::abs(d) > 1.0) ++beyond_one;
  }
  const double count = static_cast<double>(n);
  EXPECT_NEAR(sum / count, 0.0, 5e-3);
  EXPECT_NEAR(sq / count, 1.0, 5e-3);
  EXPECT_NEAR(fourth / count, 3.0, 0.03);
  EXPECT_NEAR(static_cast<double>(beyond_one) / count, 0.317311, 2e-3);
  EXPECT_NEAR(static_cast<double>(tail) / count, 5.76e-4, 1.5e-4);
  EXPECT_EQ(normal_values(7, "w", 1000), std::vector<float>(v.begin(), v.begin() + 1000));
  EXPECT_NE(normal_values(7, "b", 1000), std::vector<float>(v.begin(), v.begin() + 1000));
}

}  // namespace
}  // namespace s2::zoo
