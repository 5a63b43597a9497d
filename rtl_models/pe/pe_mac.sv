// pe_mac: the arithmetic of one S2Train PE (DESIGN.md section 6):
//   prod    = fp32_mul(a, b)         rounded to nearest-even, FTZ
//   acc_out = fp32_add(acc_in, prod) rounded to nearest-even, FTZ
// Two roundings, never a fused multiply-add. Canonical NaN is 0x7FC00000 (see fp32_mul.sv).
// Purely combinational: latency 0 (the PE array registers acc_out).
// prod is exported so regressions can check the multiplier on its own.
module pe_mac (
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] acc_in,
    output logic [31:0] prod,
    output logic [31:0] acc_out
);
  fp32_mul u_mul (
      .a(a),
      .b(b),
      .y(prod)
  );
  fp32_add u_add (
      .a(acc_in),
      .b(prod),
      .y(acc_out)
  );
endmodule
