// target::compiler_properties (isa/target/target_values.h) names every property of a target
// that s2c reads: a sweep compiles a workload once per distinct value of it. Proven here by
// compiling under targets that differ in everything else and comparing the executables byte
// for byte, and by showing that the properties it names do change them.
#include <gtest/gtest.h>

#include <string>

#include "compiler/driver/backend.h"
#include "compiler/driver/frontend.h"
#include "isa/container/writer.h"
#include "isa/target/target_values.h"
#include "simulator/dram/load_target.h"

namespace s2::compiler {
namespace {

target::TargetDesc base_target() {
  return target::load_target(std::string(S2_SOURCE_DIR) + "/configs/s2train_base.yaml");
}

// Everything s2c does not read, changed.
target::TargetDesc unread_changed(bool keep_sram) {
  target::TargetDesc t = base_target();
  t.clock_mhz = 700;
  t.pe_array.dataflow = target::Dataflow::OutputStationary;
  t.ppu.lanes = 8;
  t.ppu.ops[0].latency = 40;
  t.dma.engines = 5;
  t.dma.width_bytes = 16;
  t.dram.channels = 1;
  t.dram.timing.tRCD += 3;
  t.dram.controller.scheduler = target::DramScheduler::Fcfs;
  t.sram.input.banks = 4;
  t.sram.weight.bank_width_bytes = 64;
  if (!keep_sram) {
    t.sram.input.size_bytes *= 2;
    t.pe_array.rows = 16;
  }
  return t;
}

std::vector<uint8_t> compile(const char* model, const target::TargetDesc& target,
                             bool fuse_attention) {
  FrontendOptions front;
  front.model = model;
  if (std::string(model) == "resnet18") {
    front.model_options.batch = 2;
    front.model_options.height = front.model_options.width = 16;
  }
  const FrontendResult training = run_frontend(front);
  BackendOptions back;
  back.target = &target;
  back.fuse_attention = fuse_attention;
  return isa::serialize(run_backend(training.graph, back).executable);
}

TEST(CompilerProperties, CompilesAlikeUnderEqualCompilerProperties) {
  const target::TargetDesc base = base_target();
  const target::TargetDesc other = unread_changed(false);
  ASSERT_EQ(target::compiler_properties(base, false), target::compiler_properties(other, false));
  EXPECT_EQ(compile("resnet18", base, false), compile("resnet18", other, false));
}

TEST(CompilerProperties, FusedAttentionAddsTheArrayAndTheBuffers) {
  const target::TargetDesc base = base_target();
  const target::TargetDesc same = unread_changed(true);
  ASSERT_EQ(target::compiler_properties(base, true), target::compiler_properties(same, true));
  EXPECT_EQ(compile("gpt", base, true), compile("gpt", same, true));

  // The buffers and the array choose the attention blocks: named, and they do matter.
  target::TargetDesc small = base;
  for (target::SramBufferDesc* b :
       {&small.sram.input, &small.sram.weight, &small.sram.accumulator, &small.sram.output})
    b->size_bytes /= 64;
  EXPECT_NE(target::compiler_properties(base, true), target::compiler_properties(small, true));
  EXPECT_EQ(target::compiler_properties(base, false), target::compiler_properties(small, false));
  EXPECT_NE(compile("gpt", base, true), compile("gpt", small, true));
}

TEST(CompilerProperties, TheEpilogueIsNamedAndMatters) {
  const target::TargetDesc base = base_target();
  target::TargetDesc bare = base;
  bare.pe_array.epilogue.clear();
  EXPECT_NE(target::compiler_properties(base, false), target::compiler_properties(bare, false));
  EXPECT_NE(compile("resnet18", base, false), compile("resnet18", bare, false));
}

}  // namespace
}  // namespace s2::compiler
