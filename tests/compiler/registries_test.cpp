// Every by-name registry of the compiler answers an unknown name the same way, listing the
// known ones (the CLI's choices come from the same names()).
#include <gtest/gtest.h>

#include "compiler/memory/planner_registry.h"
#include "compiler/onnx/translators.h"
#include "compiler/ops/registry.h"
#include "compiler/schedule/schedule.h"
#include "compiler/zoo/zoo.h"
#include "tests/common/registry_expect.h"

namespace s2 {
namespace {

TEST(Registries, UnknownNamesListTheKnownOnes) {
  testing::expect_unknown_name_lists_known(ir::op_registry(), "op type");
  testing::expect_unknown_name_lists_known(memory::planner_registry(), "memory planner");
  testing::expect_unknown_name_lists_known(schedule::scheduler_registry(), "scheduler");
  testing::expect_unknown_name_lists_known(zoo::model_registry(), "model");
  testing::expect_unknown_name_lists_known(onnx_import::onnx_op_registry(), "ONNX operator");
}

TEST(Registries, EveryOpTypeIsRegisteredWithItsLowering) {
  EXPECT_EQ(ir::op_registry().size(), ir::kNumOpTypes);
  for (const auto& entry : ir::op_registry()) {
    const ir::OpSchema& s = entry.value;
    EXPECT_EQ(entry.name, ir::op_type_name(s.type));
    EXPECT_EQ(s.lowering.has_value(), s.fusion != ir::FusionClass::View) << entry.name;
  }
}

}  // namespace
}  // namespace s2
