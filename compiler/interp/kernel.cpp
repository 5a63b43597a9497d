#include "compiler/interp/kernel.h"

#include "isa/numerics/fp32.h"
#include "isa/numerics/low_precision.h"

namespace s2::ir {

void run_kernel(void (*kernel)(KernelContext&), KernelContext& ctx) {
  kernel(ctx);
  for (KernelOutput& out : ctx.out) {
    if (out.f32 == nullptr) continue;
    const auto n = static_cast<size_t>(out.numel());
    for (size_t i = 0; i < n; ++i)
      out.f32[i] = numerics::store(out.f32[i]);
    if (out.dtype != DType::F32)  // a 16-bit output, rounded where the hardware writes it
      for (size_t i = 0; i < n; ++i)
        out.f32[i] = numerics::round_to(out.dtype, out.f32[i]);
  }
}

}  // namespace s2::ir
