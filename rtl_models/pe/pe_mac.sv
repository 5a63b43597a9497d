// pe_mac: the arithmetic of one S2Train PE multiply-accumulate (DESIGN.md section 6):
//   prod    = fp32_mul(widen(a), widen(b))   rounded to nearest-even, FTZ
//   acc_out = fp32_add(acc_in, prod)         rounded to nearest-even, FTZ
// Two roundings, never a fused multiply-add. Canonical NaN is 0x7FC00000 (see fp32_mul.sv).
// mode selects the multiplicands' type (fp16_widen.sv): 0 f32 (a and b are fp32), 1 bf16,
// 2 f16 (a[15:0] and b[15:0] are the 16-bit values, the upper halves are ignored). A product of
// two 16-bit values is exact in fp32 unless it overflows or falls below 2^-126 (8- or 11-bit
// significands), so in those modes only fp32_mul's range handling and the add round.
// Purely combinational: latency 0 (the PE array registers acc_out).
// prod is exported so regressions can check the multiplier on its own.
// The logic is pe_arith_pkg::pe_mac_fn (pe_arith_pkg.sv), which the PE array calls directly.
module pe_mac (
    input  logic [ 1:0] mode,
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] acc_in,
    output logic [31:0] prod,
    output logic [31:0] acc_out
);
  import pe_arith_pkg::*;
  assign prod    = fp32_mul_fn(fp16_widen_fn(mode, a), fp16_widen_fn(mode, b));
  assign acc_out = fp32_add_fn(acc_in, prod);
endmodule
