// fp16_widen: a PE multiplicand as the fp32 multiplier reads it (DESIGN.md section 6,
// isa/numerics/low_precision.h), per multiply mode:
//  * mode 0 (f32): x unchanged;
//  * mode 1 (bf16): x[15:0] becomes the top half of an fp32. A bf16 subnormal becomes an fp32
//    subnormal, which fp32_mul reads as zero of its sign (DAZ), as the C++ model does;
//  * mode 2 (f16): x[15:0] is an IEEE binary16 value, widened exactly: normals rebias their
//    exponent (15 -> 127), subnormals (f * 2^-24) are normalised (every fp16 subnormal is an
//    fp32 normal, so loss-scaled gradients keep their bits), Inf stays Inf and every NaN
//    becomes the canonical fp32 NaN 0x7FC00000.
// Mode 3 is not a mode (the harnesses never drive it); it reads as f32.
// Purely combinational.
// The logic is pe_arith_pkg::fp16_widen_fn (pe_arith_pkg.sv), which the PE array calls directly.
module fp16_widen (
    input  logic [ 1:0] mode,
    input  logic [31:0] x,
    output logic [31:0] y
);
  import pe_arith_pkg::*;
  assign y = fp16_widen_fn(mode, x);
endmodule
