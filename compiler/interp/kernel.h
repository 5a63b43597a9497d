#pragma once
// What a reference-interpreter kernel sees: its op, its inputs and outputs as dense
// row-major arrays, and the PE GEMM model (the interpreter gathers strided views into temporaries
// first). An output that aliases an input in place (sgd) points at the same memory as that input;
// kernels must read each element before writing it there.

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/numerics/pe_gemm.h"

namespace s2::ir {

struct KernelInput {
  DType dtype = DType::F32;
  Shape shape;
  const float* f32 = nullptr;    // set for float inputs (f32, bf16, f16: the values as f32)
  const int32_t* i32 = nullptr;  // set for i32 inputs
  bool present() const { return f32 != nullptr || i32 != nullptr; }
  int64_t numel() const { return shape_numel(shape); }
};

struct KernelOutput {
  DType dtype = DType::F32;
  Shape shape;
  float* f32 = nullptr;  // float outputs; run_kernel rounds 16-bit ones afterwards
  int32_t* i32 = nullptr;
  bool present() const { return f32 != nullptr || i32 != nullptr; }
  int64_t numel() const { return shape_numel(shape); }
};

struct KernelContext {
  const Op& op;
  std::vector<KernelInput> in;    // per schema input; absent optional inputs are !present()
  std::vector<KernelOutput> out;  // per schema output; zero-filled unless aliased in place;
                                  // absent optional outputs are !present()
  numerics::PeGemm& pe;           // the PE array's GEMM (its K-tile) for the PE-class kernels
};

// Runs the op's kernel, then makes its float outputs datapath values as the hardware writes them
// (subnormals flushed, NaNs canonical: isa/numerics/fp32.h store()), and rounds bf16 and f16
// outputs to their type (isa/numerics/low_precision.h). Inputs must already be
// datapath values (flushed), as everything a kernel wrote is.
void run_kernel(void (*kernel)(KernelContext&), KernelContext& ctx);

}  // namespace s2::ir
