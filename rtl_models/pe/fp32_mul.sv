// fp32_mul: IEEE-754 binary32 multiply for the S2Train PE (DESIGN.md section 6).
//
// Contract (the C++ twin is fp32_mul_ftz in fp32_ref.h; the two are bit-identical):
//  * round to nearest, ties to even;
//  * subnormal inputs are read as zero of the same sign (DAZ);
//  * a result that is subnormal AFTER rounding (rounded with the subnormal format's precision,
//    as IEEE does) is flushed to zero of the same sign. A product just below 2^-126 that rounds
//    up to the smallest normal 0x00800000 is kept: that happens exactly when the unrounded
//    product, normalised with an exponent one below the minimum, has all 24 significand bits set
//    (it is then >= 2^-126 - 2^-150, the tie, which rounds to the even 2^-126);
//  * every NaN result is the one canonical quiet NaN 0x7FC00000 (input payloads and signs are
//    not propagated); Inf * 0 is that NaN; Inf * finite is Inf with sign a^b; overflow is Inf.
// Purely combinational: latency 0.
// The logic is pe_arith_pkg::fp32_mul_fn (pe_arith_pkg.sv), which the PE array calls directly.
module fp32_mul (
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
  import pe_arith_pkg::*;
  assign y = fp32_mul_fn(a, b);
endmodule
