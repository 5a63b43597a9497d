#pragma once
// Small helpers shared by the op tests.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/common/errors.h"

namespace s2::ir {

// An f32 parameter with the given contents.
inline TensorId param(Graph& g, const std::string& name, const Shape& shape,
                      std::vector<float> values, TensorRole role = TensorRole::Input) {
  return g.add_parameter(name, role, DType::F32, shape,
                         std::make_shared<HostArray>(std::move(values)));
}

// The message of the UserError fn() throws, or "(no error)".
template <typename Fn>
std::string user_error(Fn fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace s2::ir
