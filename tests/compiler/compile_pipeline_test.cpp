// The whole compiler proven end to end: front half, fusion, scheduling, memory planning,
// lowering and dependencies. The emitted instruction stream, executed in order by the
// in-compiler stream checker on a flat DRAM image, computes the same loss and the same
// updated weights, bit for bit, as the reference interpreter on the unfused training graph.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "compiler/driver/backend.h"
#include "compiler/driver/frontend.h"
#include "compiler/interp/interpreter.h"
#include "compiler/lower/stream_checker.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"

namespace s2::compiler {
namespace {

struct Case {
  const char* model;
  const char* schedule;
  const char* planner;
  bool fuse;
  int64_t batch;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = std::string(info.param.model) + "_" + info.param.schedule + "_" +
                  info.param.planner + (info.param.fuse ? "_fused" : "_unfused") + "_batch" +
                  std::to_string(info.param.batch);
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

bool same_bits(const ir::HostArray& a, const ir::HostArray& b) {
  if (a.dtype() != b.dtype() || a.size() != b.size()) return false;
  if (a.dtype() == isa::DType::F32)
    return std::memcmp(a.f32().data(), b.f32().data(), a.size() * sizeof(float)) == 0;
  return a.i32() == b.i32();
}

class CompilePipeline : public ::testing::TestWithParam<Case> {};

TEST_P(CompilePipeline, StreamMatchesTheInterpreterOnTheUnfusedGraph) {
  const Case& c = GetParam();
  FrontendOptions front;
  front.model = c.model;
  front.model_options.batch = c.batch;
  front.model_options.height = front.model_options.width = 16;
  const FrontendResult training = run_frontend(front);

  ir::Interpreter reference(training.graph);
  reference.run();

  BackendOptions back;
  back.fuse = c.fuse;
  back.schedule = c.schedule;
  back.plan.planner = c.planner;
  back.plan.budget_ms = 20;
  const BackendResult compiled = run_backend(training.graph, back);
  // Through the file format, as the simulator will see it.
  const isa::Executable exe = isa::read_executable(isa::serialize(compiled.executable), "step.bin");
  const lower::DramImage image = lower::execute_stream(exe);

  size_t compared = 0;
  for (const isa::TensorEntry& entry : exe.tensors) {
    const bool weight = entry.role == isa::TensorRole::Weight;
    const bool loss = entry.name == training.graph.tensor(training.graph.loss()).name;
    if (!weight && !loss) continue;
    const ir::TensorId t = training.graph.find_tensor(entry.name);
    ASSERT_TRUE(t.valid()) << entry.name;
    const ir::HostArray want =
        weight ? reference.buffer(training.graph.tensor(t).data) : reference.value(t);
    EXPECT_TRUE(same_bits(image.read(entry), want)) << entry.name << " differs";
    ++compared;
  }
  EXPECT_GT(compared, 2u);
  if (c.fuse) {
    EXPECT_LT(compiled.ops_after_fusion, compiled.ops_before_fusion);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, CompilePipeline,
                         ::testing::Values(Case{"mlp", "memory-aware", "greedy", true, 2},
                                           Case{"lenet5", "update-last", "none", false, 2},
                                           Case{"lenet5", "update-immediate", "grad-reuse", true,
                                                2},
                                           Case{"resnet18", "memory-aware", "search", true, 2},
                                           Case{"resnet18", "update-immediate", "greedy", false, 2},
                                           // At batch 1 the class token's gradient is placed inside
                                           // its concat with the buffer's stride on the batch axis
                                           // of extent 1 (ir::same_strides).
                                           Case{"vit", "memory-aware", "greedy", false, 1}),
                         case_name);

// The summary is never cut: resnet50's fusion line at batch 8 already came within 20
// characters of the fixed 256-byte buffer the summary used to be printed into.
TEST(BackendSummary, PrintsSummariesOfAnyLengthWhole) {
  BackendResult r;
  r.ops_before_fusion = 567;
  r.ops_after_fusion = 470;
  r.fusion_summary = std::string(1000, 'x') + " end of the fusion summary";
  r.plan.planner = std::string(300, 'p');
  const std::string text = backend_summary(r);
  EXPECT_NE(text.find("fusion: 567 ops -> 470 ops; " + r.fusion_summary + "\n"), std::string::npos);
  EXPECT_NE(text.find("memory plan (" + r.plan.planner + "): arena"), std::string::npos);
}

}  // namespace
}  // namespace s2::compiler
