// Embedding lookup (PyTorch's nn.Embedding: token and position embeddings) and its backward,
// on the PPU.
//
// embedding(weight [V, D], ids [...] i32) gathers one row of the table per id: y has the shape
// of ids (rank 1 to 3) with D appended. Its backward, embedding_bwd(dy, ids) -> dweight [V, D],
// zeroes the table's gradient and adds each row of dy to the row its id names, in row-major
// order of ids, so a token that occurs twice accumulates both rows. ids carry no gradient.
//
// An id outside [0, V) is a fault of the input batch, known only with the numbers: the kernels
// throw a UserError naming the op and the id's position (and s2c checks a --input file's ids
// against every table that reads them before compiling). The arithmetic is
// isa/numerics/embedding.h, shared with the simulator's functional model.

#include "isa/numerics/embedding.h"

#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/common/errors.h"

namespace s2::ir {
namespace {

// ids: i32 of rank 1 to 3 (the result appends the row, and descriptors hold 4 dimensions).
void check_ids(const InferContext& ctx, size_t i) {
  ctx.expect_dtype(i, DType::I32);
  const size_t rank = ctx.shape(i).size();
  if (rank < 1 || rank > 3)
    ctx.fail(ctx.describe(i) +
             " must have rank 1 to 3 (the result appends the table's row; the ISA's "
             "descriptors hold up to 4 dimensions)");
}

Shape with_row(const Shape& ids, int64_t d) {
  Shape s = ids;
  s.push_back(d);
  return s;
}

void check_ids_in_table(const KernelContext& k, const KernelInput& ids, int64_t rows) {
  const auto n = static_cast<size_t>(ids.numel());
  if (const auto bad = numerics::first_id_outside(ids.i32, n, static_cast<size_t>(rows)))
    throw UserError("op '" + k.op.name + "' (" + std::string(op_type_name(k.op.type)) + "): id " +
                    std::to_string(ids.i32[*bad]) + " at position " + std::to_string(*bad) +
                    " of 'ids' is outside the table's rows [0," + std::to_string(rows) + ")");
}

// ---- embedding ----

std::vector<OutputSpec> infer_embedding(const InferContext& ctx) {
  ctx.expect_float(0);
  ctx.expect_rank(0, 2);
  check_ids(ctx, 1);
  OutputSpec y;
  y.dtype = ctx.result_dtype();
  y.shape = with_row(ctx.shape(1), ctx.shape(0)[1]);
  return {y};
}

void embedding_kernel(KernelContext& k) {
  const KernelInput& table = k.in[0];
  check_ids_in_table(k, k.in[1], table.shape[0]);
  numerics::gather_rows(table.f32, static_cast<size_t>(table.shape[1]), k.in[1].i32,
                        static_cast<size_t>(k.in[1].numel()), k.out[0].f32);
}

void embedding_backward(BackwardContext& b) {
  if (!b.needs_grad(0) || !b.grad_output(0).valid()) return;
  const int64_t rows = b.tensor(b.input(0)).shape[0];
  b.add_grad(0, b.emit1(OpType::EmbeddingBwd, "bwd", b.grad_category(0),
                        {b.grad_output(0), b.input(1)}, Attrs{{"num_rows", rows}}));
}

// ---- embedding_bwd ----

std::vector<OutputSpec> infer_embedding_bwd(const InferContext& ctx) {
  check_ids(ctx, 1);
  ctx.expect_float(0);
  const Shape& dy = ctx.shape(0);
  if (dy.size() != ctx.shape(1).size() + 1)
    ctx.fail(ctx.describe(0) + " must have the shape of " + ctx.describe(1) +
             " with the table's row appended");
  ctx.expect_shape(0, with_row(ctx.shape(1), dy.back()));
  const int64_t rows = ctx.attrs().i("num_rows");
  if (rows < 1) ctx.fail("num_rows=" + std::to_string(rows) + " must be at least 1");
  OutputSpec dw;
  dw.dtype = ctx.result_dtype();
  dw.shape = {rows, dy.back()};
  return {dw};
}

void embedding_bwd_kernel(KernelContext& k) {
  const int64_t rows = k.op.attrs.i("num_rows");
  check_ids_in_table(k, k.in[1], rows);
  numerics::scatter_add_rows(k.in[0].f32, static_cast<size_t>(k.out[0].shape[1]), k.in[1].i32,
                             static_cast<size_t>(k.in[1].numel()), static_cast<size_t>(rows),
                             k.out[0].f32);
}

}  // namespace

void register_embedding_ops(OpRegistry& r) {
  const SlotBinding ids{"ids", Slot::Ids};
  add_op(r,
         OpSchema{OpType::Embedding,
                  FusionClass::Ppu,
                  {{"weight"}, {"ids"}},
                  {"y"},
                  {},
                  infer_embedding,
                  embedding_backward,
                  embedding_kernel,
                  "Embedding lookup (nn.Embedding): y[..., :] = weight[ids[...], :] for weight "
                  "[V, D] f32 and ids i32 of rank 1 to 3; y has ids' shape with D appended. An "
                  "id outside [0, V) makes the interpreter throw a UserError naming the op."},
         {OpType::Embedding,
          Opcode::Gather,
          {{"weight", Slot::Table}, ids},
          {{"y", Slot::Y}},
          false,
          [](const ir::Op&, Instruction&) {},
          decode_nothing,
          always});
  add_op(r,
         OpSchema{OpType::EmbeddingBwd,
                  FusionClass::Ppu,
                  {{"dy"}, {"ids"}},
                  {"dweight"},
                  {{"num_rows", AttrKind::Int, std::nullopt}},
                  infer_embedding_bwd,
                  nullptr,
                  embedding_bwd_kernel,
                  "Gradient of embedding for its table: dweight [num_rows, D] = 0, then "
                  "dweight[ids[i], :] += dy[i, :] in row-major order of ids (repeated ids "
                  "accumulate). No backward rule."},
         {OpType::EmbeddingBwd,
          Opcode::ScatterAdd,
          {{"dy", Slot::Dy}, ids},
          {{"dweight", Slot::Dw}},
          false,
          [](const ir::Op&, Instruction&) {},
          [](const Instruction& inst, ir::Attrs& a) {
            a.set("num_rows", static_cast<int64_t>(inst.get(Slot::Dw).shape[0]));
          },
          always});
}

}  // namespace s2::ir
