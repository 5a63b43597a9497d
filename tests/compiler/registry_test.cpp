// The op registry is complete and self-consistent.
#include "compiler/ops/registry.h"

#include <gtest/gtest.h>

#include <set>

namespace s2::ir {
namespace {

TEST(Registry, EveryOpTypeHasASchema) {
  for (size_t i = 0; i < kNumOpTypes; ++i) {
    const OpType type = static_cast<OpType>(i);
    const OpSchema* schema = op_registry().find(op_type_name(type));
    ASSERT_NE(schema, nullptr) << op_type_name(type) << " is not registered";
    EXPECT_EQ(schema->type, type);
    EXPECT_FALSE(schema->doc.empty()) << op_type_name(type) << " has no doc string";
    EXPECT_FALSE(schema->outputs.empty()) << op_type_name(type);
    EXPECT_TRUE(schema->kernel != nullptr || schema->fusion == FusionClass::View)
        << op_type_name(type) << " has no kernel";
  }
}

TEST(Registry, NamesRoundTrip) {
  std::set<std::string> names;
  for (size_t i = 0; i < kNumOpTypes; ++i) {
    const OpType type = static_cast<OpType>(i);
    EXPECT_EQ(op_type_from_name(op_type_name(type)), type);
    EXPECT_TRUE(names.insert(std::string(op_type_name(type))).second);
  }
  EXPECT_FALSE(op_type_from_name("no_such_op").has_value());
}

TEST(Registry, SchemaNamesAreUnique) {
  for (size_t i = 0; i < kNumOpTypes; ++i) {
    const OpSchema& s = op_schema(static_cast<OpType>(i));
    std::set<std::string> seen;
    for (const InputSpec& in : s.inputs)
      EXPECT_TRUE(seen.insert(in.name).second) << in.name;
    for (const std::string& out : s.outputs)
      EXPECT_TRUE(seen.insert(out).second) << out;
    std::set<std::string> attrs;
    for (const AttrSpec& a : s.attrs)
      EXPECT_TRUE(attrs.insert(a.name).second) << a.name;
  }
}

// Forward ops that autodiff must differentiate have a backward rule.
TEST(Registry, ForwardOpsHaveBackwardRules) {
  for (OpType t : {OpType::Conv2d, OpType::Gemm, OpType::BatchNorm, OpType::Relu, OpType::Add,
                   OpType::Mul, OpType::Scale, OpType::MaxPool2d, OpType::AvgPool2d,
                   OpType::Reshape, OpType::Transpose, OpType::SoftmaxCe})
    EXPECT_NE(op_schema(t).backward, nullptr) << op_type_name(t);
}

}  // namespace
}  // namespace s2::ir
