#include "simulator/functional/embedding.h"

#include <string>
#include <vector>

#include "isa/numerics/embedding.h"
#include "simulator/functional/operands.h"

namespace s2::sim::functional {
namespace {

using isa::Slot;

// The ids, each checked against the table's V rows.
std::vector<int32_t> checked_ids(const Operands& ops, size_t rows) {
  std::vector<int32_t> ids = ops.i32(Slot::Ids);
  if (const auto bad = numerics::first_id_outside(ids.data(), ids.size(), rows))
    ops.fail("id " + std::to_string(ids[*bad]) + " at position " + std::to_string(*bad) +
             " of 'ids' is outside the table's rows [0," + std::to_string(rows) + ")");
  return ids;
}

}  // namespace

void run_gather(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const isa::TensorDesc& t = ops.desc(Slot::Table);
  const std::vector<int32_t> ids = checked_ids(ops, t.shape[0]);
  const std::vector<float> table = ops.f32(Slot::Table);
  std::vector<float> y(ids.size() * t.shape[1]);
  numerics::gather_rows(table.data(), t.shape[1], ids.data(), ids.size(), y.data());
  ops.write(Slot::Y, y);
}

void run_scatter_add(const isa::Instruction& inst, DramImage& image, Datapath& /*dp*/) {
  Operands ops(inst, image);
  const isa::TensorDesc& w = ops.desc(Slot::Dw);
  const std::vector<int32_t> ids = checked_ids(ops, w.shape[0]);
  const std::vector<float> dy = ops.f32(Slot::Dy);
  std::vector<float> dw(w.elements());
  numerics::scatter_add_rows(dy.data(), w.shape[1], ids.data(), ids.size(), w.shape[0], dw.data());
  ops.write(Slot::Dw, dw);
}

}  // namespace s2::sim::functional
