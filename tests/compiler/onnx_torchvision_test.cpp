// torchvision models exported by scripts/export_onnx.py (PyTorch's own exporter) import into
// the same graph structure as the zoo builds for them. Skipped where /usr/bin/python3 has no
// torch, torchvision or onnx.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "compiler/ir/verifier.h"
#include "compiler/onnx/onnx_import.h"
#include "compiler/zoo/zoo.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::onnx_import {
namespace {

bool have_torch() {
  static const bool have =
      std::system("/usr/bin/python3 -c 'import torch, torchvision, onnx' >/dev/null 2>&1") == 0;
  return have;
}

// Exports `model` (batch 4, 3x32x32, 10 classes) in `mode` to `path`.
void export_model(const std::string& model, const std::string& mode, const std::string& path) {
  const std::string command = "/usr/bin/python3 " + std::string(S2_SOURCE_DIR) +
                              "/scripts/export_onnx.py " + model + " -o '" + path +
                              "' --batch 4 --image 32 --classes 10 --mode " + mode +
                              " --opset 17 >'" + path + ".log' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command << " failed; see " << path << ".log";
}

std::map<std::string, int> op_counts(const ir::Graph& g) {
  std::map<std::string, int> counts;
  for (size_t i = 0; i < g.num_ops(); ++i)
    ++counts[std::string(ir::op_type_name(g.op(ir::OpId(i)).type))];
  return counts;
}

// name -> "role f32[shape]" of every tensor no op produces.
std::map<std::string, std::string> parameters(const ir::Graph& g) {
  std::map<std::string, std::string> params;
  for (size_t i = 0; i < g.num_tensors(); ++i) {
    const ir::Tensor& t = g.tensor(ir::TensorId(i));
    if (t.producer.valid()) continue;
    params[t.name] =
        std::string(isa::role_name(g.data(t.data).role)) + " " + ir::shape_text(t.dtype, t.shape);
  }
  return params;
}

std::vector<std::string> activation_shapes(const ir::Graph& g) {
  std::vector<std::string> shapes;
  for (size_t i = 0; i < g.num_ops(); ++i)
    for (ir::TensorId out : g.op(ir::OpId(i)).outputs)
      if (out.valid()) shapes.push_back(ir::shape_text(g.tensor(out).dtype, g.tensor(out).shape));
  std::sort(shapes.begin(), shapes.end());
  return shapes;
}

TEST(OnnxTorchvision, Resnet18TrainingExportMatchesTheZoo) {
  if (!have_torch()) GTEST_SKIP() << "/usr/bin/python3 cannot import torch, torchvision and onnx";
  testing::TempDir dir;
  const std::string path = dir.file("resnet18.onnx");
  export_model("resnet18", "train", path);
  const ir::Graph imported = import_onnx(path, {0, 10, 1});
  EXPECT_EQ(ir::verify_graph(imported), std::vector<std::string>{});

  zoo::ModelOptions options;
  options.batch = 4;
  options.height = options.width = 32;
  options.classes = 10;
  const ir::Graph zoo = zoo::build_model("resnet18", options);

  EXPECT_EQ(op_counts(imported), op_counts(zoo));
  EXPECT_EQ(parameters(imported), parameters(zoo));
  EXPECT_EQ(activation_shapes(imported), activation_shapes(zoo));
  EXPECT_EQ(imported.tensor(imported.loss()).shape, (ir::Shape{1}));
}

TEST(OnnxTorchvision, Resnet18EvalExportHasConvBiasesAndNoBatchNorm) {
  if (!have_torch()) GTEST_SKIP() << "/usr/bin/python3 cannot import torch, torchvision and onnx";
  testing::TempDir dir;
  const std::string path = dir.file("resnet18_eval.onnx");
  export_model("resnet18", "eval", path);
  const ir::Graph g = import_onnx(path, {0, 10, 1});
  EXPECT_EQ(ir::verify_graph(g), std::vector<std::string>{});
  const std::map<std::string, int> counts = op_counts(g);
  EXPECT_EQ(counts, (std::map<std::string, int>{{"add", 8},
                                                {"avg_pool2d", 1},
                                                {"conv2d", 20},
                                                {"gemm", 1},
                                                {"max_pool2d", 1},
                                                {"relu", 17},
                                                {"reshape", 1},
                                                {"softmax_ce", 1}}));
  for (size_t i = 0; i < g.num_ops(); ++i) {
    const ir::Op& op = g.op(ir::OpId(i));
    if (op.type == ir::OpType::Conv2d) {
      EXPECT_TRUE(op.inputs.at(2).valid()) << op.name << " has no bias";
    }
  }
  for (size_t i = 0; i < g.num_datas(); ++i)
    EXPECT_NE(g.data(ir::DataId(i)).role, isa::TensorRole::State) << g.data(ir::DataId(i)).name;
}

}  // namespace
}  // namespace s2::onnx_import
