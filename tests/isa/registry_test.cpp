// The generic registry (isa/common/registry.h) and the check macro (isa/common/errors.h).
#include "isa/common/registry.h"

#include <gtest/gtest.h>

#include <string>

namespace s2 {
namespace {

TEST(Registry, FindsByNameInRegistrationOrder) {
  Registry<int> r("widget");
  r.add("zeta", 1);
  r.add("alpha", 2);
  ASSERT_NE(r.find("alpha"), nullptr);
  EXPECT_EQ(*r.find("alpha"), 2);
  EXPECT_EQ(r.get("zeta"), 1);
  EXPECT_EQ(r.find("beta"), nullptr);
  EXPECT_TRUE(r.contains("zeta"));
  EXPECT_EQ(r.names(), (std::vector<std::string>{"zeta", "alpha"}));
  EXPECT_EQ(r.known(), "zeta, alpha");
  EXPECT_EQ(r.size(), 2u);
  std::string order;
  for (const auto& e : r)
    order += e.name + "=" + std::to_string(e.value) + ";";
  EXPECT_EQ(order, "zeta=1;alpha=2;");
}

TEST(Registry, SortedRegistryListsNamesSorted) {
  Registry<int> r("ONNX operator", ListOrder::Sorted);
  r.add("Relu", 0);
  r.add("Add", 1);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"Add", "Relu"}));
  EXPECT_EQ(r.unknown_message("Foo"), "unknown ONNX operator 'Foo'; known: Add, Relu");
  EXPECT_EQ(r.begin()->name, "Relu");  // iteration stays in registration order
}

TEST(Registry, UnknownNameIsAUserErrorListingTheKnownOnes) {
  Registry<int> r("memory planner");
  r.add("none", 0);
  r.add("greedy", 1);
  try {
    r.get("gredy");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown memory planner 'gredy'; known: none, greedy");
  }
}

TEST(Registry, DuplicateOrEmptyNameIsAnInternalError) {
  Registry<int> r("widget");
  r.add("a", 0);
  EXPECT_THROW(r.add("a", 1), InternalError);
  EXPECT_THROW(r.add("", 1), InternalError);
}

TEST(Registry, ValuesDoNotMoveWhenMoreAreRegistered) {
  Registry<std::string> r("widget");
  const std::string* first = &r.add("first", "value");
  for (int i = 0; i < 1000; ++i)
    r.add("n" + std::to_string(i), "x");
  EXPECT_EQ(first, r.find("first"));
}

TEST(Check, PassingCheckDoesNotEvaluateItsMessage) {
  int built = 0;
  auto message = [&] {
    ++built;
    return std::string("expensive");
  };
  S2_CHECK(1 + 1 == 2, message());
  EXPECT_EQ(built, 0);
}

TEST(Check, FailingCheckNamesConditionFileAndLine) {
  try {
    const int rows = 0;
    S2_CHECK(rows > 0, "the array has " + std::to_string(rows) + " rows");
    FAIL() << "no error";
  } catch (const InternalError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("the array has 0 rows (internal check 'rows > 0' failed at "),
              std::string::npos)
        << text;
    // Project-relative: the build maps the source directory away.
    EXPECT_NE(text.find(" tests/isa/registry_test.cpp:"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace s2
