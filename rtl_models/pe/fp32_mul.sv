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
module fp32_mul (
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
  localparam logic [31:0] CanonicalNaN = 32'h7FC0_0000;

  logic sa, sb, sy;
  logic [7:0] ea, eb;
  logic [22:0] fa, fb;
  assign {sa, ea, fa} = a;
  assign {sb, eb, fb} = b;
  assign sy = sa ^ sb;

  logic a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
  assign a_zero = (ea == 8'd0);  // zero or subnormal (flushed)
  assign b_zero = (eb == 8'd0);
  assign a_inf  = (ea == 8'hFF) && (fa == 23'd0);
  assign b_inf  = (eb == 8'hFF) && (fb == 23'd0);
  assign a_nan  = (ea == 8'hFF) && (fa != 23'd0);
  assign b_nan  = (eb == 8'hFF) && (fb != 23'd0);

  // Exact product of the two 24-bit significands, in [2^46, 2^48).
  logic [47:0] prod;
  assign prod = {1'b1, fa} * {1'b1, fb};

  // Normalise to a 24-bit significand plus guard and sticky.
  logic [23:0] sig;
  logic guard, sticky;
  always_comb begin
    if (prod[47]) begin
      sig    = prod[47:24];
      guard  = prod[23];
      sticky = |prod[22:0];
    end else begin
      sig    = prod[46:23];
      guard  = prod[22];
      sticky = |prod[21:0];
    end
  end

  // Biased exponent of the normalised product, offset by +127 to stay unsigned:
  // e_sum = E + 127 where E is the result's (unbounded) biased exponent before rounding.
  logic [9:0] e_sum;
  assign e_sum = {2'b00, ea} + {2'b00, eb} + {9'd0, prod[47]};

  // Round to nearest even on the 23 stored fraction bits; a carry out of the fraction makes the
  // significand 2.0, i.e. fraction 0 and exponent + 1.
  logic round_up, carry;
  logic [22:0] frac_r;
  assign round_up = guard & (sticky | sig[0]);
  assign {carry, frac_r} = {1'b0, sig[22:0]} + {23'd0, round_up};

  logic [9:0] e_out;  // e_sum + carry - 127 (only meaningful when e_sum >= 128)
  assign e_out = e_sum + {9'd0, carry} - 10'd127;

  always_comb begin
    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) begin
      y = CanonicalNaN;
    end else if (a_inf || b_inf) begin
      y = {sy, 8'hFF, 23'd0};
    end else if (a_zero || b_zero) begin
      y = {sy, 31'd0};
    end else if (e_sum >= 10'd128) begin  // normal before rounding
      if (e_out >= 10'd255) y = {sy, 8'hFF, 23'd0};  // overflow
      else y = {sy, e_out[7:0], frac_r};
    end else if (e_sum == 10'd127 && sig == 24'hFF_FFFF) begin
      y = {sy, 8'd1, 23'd0};  // rounds up to the smallest normal
    end else begin
      y = {sy, 31'd0};  // subnormal after rounding: flushed
    end
  end
endmodule
