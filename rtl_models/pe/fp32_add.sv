// fp32_add: IEEE-754 binary32 add for the S2Train PE (DESIGN.md section 6).
//
// Contract (the C++ twin is fp32_add_ftz in fp32_ref.h; the two are bit-identical):
//  * round to nearest, ties to even;
//  * subnormal inputs are read as zero of the same sign (DAZ);
//  * a subnormal result is flushed to zero of the sign of the exact result. With normal (or
//    zero) inputs a sum below 2^-126 can only come from cancellation and is then exact, so no
//    result ever rounds up from the subnormal range to the smallest normal here;
//  * x + (-x) = +0; (-0) + (-0) = -0; (+0) + (-0) = +0;
//  * every NaN result is the one canonical quiet NaN 0x7FC00000; Inf + (-Inf) is that NaN;
//    Inf + finite is that Inf; overflow is Inf.
// Purely combinational: latency 0.
// The logic is pe_arith_pkg::fp32_add_fn (pe_arith_pkg.sv), which the PE array calls directly.
module fp32_add (
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
  import pe_arith_pkg::*;
  assign y = fp32_add_fn(a, b);
endmodule
