#pragma once
// What every registry of the toolchain must do with a name it does not know: a UserError in
// the one wording, listing every registered name (isa/common/registry.h).
#include <gtest/gtest.h>

#include <string>

#include "isa/common/registry.h"

namespace s2::testing {

template <typename T>
void expect_unknown_name_lists_known(const Registry<T>& registry, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_FALSE(registry.empty());
  EXPECT_EQ(registry.what(), what);
  try {
    registry.get("no-such-thing");
    ADD_FAILURE() << "no error for an unknown " << what;
  } catch (const UserError& e) {
    std::string known;
    for (const std::string& name : registry.names())
      known += (known.empty() ? "" : ", ") + name;
    EXPECT_EQ(std::string(e.what()), "unknown " + what + " 'no-such-thing'; known: " + known);
  }
  for (const std::string& name : registry.names())
    EXPECT_NE(registry.find(name), nullptr) << name;
}

}  // namespace s2::testing
