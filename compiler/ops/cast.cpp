// cast: y = x in another float type (attribute `dtype`: f32, bf16 or f16), rounded once to
// nearest even; widening is exact (isa/numerics/low_precision.h). It is the PPU's `cast`
// instruction. Its gradient is dy cast back to x's type, as autograd's `.to(dtype)` does.

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/autodiff/backward_context.h"
#include "compiler/interp/kernel.h"
#include "compiler/ops/lowering.h"
#include "compiler/ops/registry.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {
namespace {

std::vector<OutputSpec> infer_cast(const InferContext& ctx) {
  const std::string& name = ctx.attrs().s("dtype");
  const std::optional<DType> to = isa::dtype_from_name(name);
  if (!to || !numerics::is_float_dtype(*to))
    ctx.fail("attribute 'dtype' is '" + name + "'; a cast converts to f32, bf16 or f16");
  if (!numerics::is_float_dtype(ctx.input(0).dtype))
    ctx.fail("input " + ctx.describe(0) + " is not of a float type");
  OutputSpec y;
  y.dtype = *to;
  y.shape = ctx.shape(0);
  return {y};
}

// The values pass unchanged; run_kernel rounds a 16-bit output to its type.
void cast_kernel(KernelContext& k) {
  std::copy(k.in[0].f32, k.in[0].f32 + k.in[0].numel(), k.out[0].f32);
}

void cast_backward(BackwardContext& b) {
  const TensorId dy = b.grad_output(0);
  if (!dy.valid() || !b.needs_grad(0)) return;
  const std::string back(isa::dtype_name(b.tensor(b.input(0)).dtype));
  b.add_grad(0, b.emit1(OpType::Cast, "grad", b.grad_category(0), {dy}, Attrs{{"dtype", back}}));
}

void decode_cast(const Instruction& inst, Attrs& a) {
  a.set("dtype", std::string(isa::dtype_name(inst.get(Slot::Y).dtype)));
}

}  // namespace

void register_cast_ops(OpRegistry& r) {
  add_op(r,
         OpSchema{OpType::Cast,
                  FusionClass::Ppu,
                  {{"x"}},
                  {"y"},
                  {{"dtype", AttrKind::String, std::nullopt}},
                  infer_cast,
                  cast_backward,
                  cast_kernel,
                  "y = x in the float type `dtype` (f32, bf16, f16): rounded to nearest even "
                  "when narrower, exact when wider. The gradient is dy cast back to x's type."},
         {OpType::Cast,
          Opcode::Cast,
          {{"x", Slot::X}},
          {{"y", Slot::Y}},
          false,
          encode_nothing,
          decode_cast,
          always});
}

}  // namespace s2::ir
