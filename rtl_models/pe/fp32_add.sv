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
module fp32_add (
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
  localparam logic [31:0] CanonicalNaN = 32'h7FC0_0000;

  logic sa, sb;
  logic [7:0] ea, eb;
  logic [22:0] fa, fb;
  assign {sa, ea, fa} = a;
  assign {sb, eb, fb} = b;

  logic a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
  assign a_zero = (ea == 8'd0);  // zero or subnormal (flushed)
  assign b_zero = (eb == 8'd0);
  assign a_inf  = (ea == 8'hFF) && (fa == 23'd0);
  assign b_inf  = (eb == 8'hFF) && (fb == 23'd0);
  assign a_nan  = (ea == 8'hFF) && (fa != 23'd0);
  assign b_nan  = (eb == 8'hFF) && (fb != 23'd0);

  // Order the operands by magnitude: big >= small.
  logic swap;
  logic s_big, s_small;
  logic [7:0] e_big, e_small;
  logic [22:0] f_big, f_small;
  assign swap = {eb, fb} > {ea, fa};
  assign {s_big, e_big, f_big} = swap ? b : a;
  assign {s_small, e_small, f_small} = swap ? a : b;

  // Significands with three extra bits (guard, round, sticky); the smaller one is shifted right
  // by the exponent difference and everything shifted out is ORed into the sticky bit.
  logic [7:0] shift;
  logic [26:0] m_big, m_small_full, m_small;
  assign shift = e_big - e_small;
  assign m_big = {1'b1, f_big, 3'b000};
  assign m_small_full = {1'b1, f_small, 3'b000};
  always_comb begin
    if (shift >= 8'd27) begin
      m_small = 27'd1;  // only sticky survives (the significand is nonzero)
    end else begin
      m_small = (m_small_full >> shift)
              | {26'd0, |(m_small_full & ~(27'h7FF_FFFF << shift))};
    end
  end

  logic subtract;
  logic [27:0] sum;
  assign subtract = s_big ^ s_small;
  assign sum = subtract ? {1'b0, m_big} - {1'b0, m_small} : {1'b0, m_big} + {1'b0, m_small};

  // Leading zeros of sum[26:0] (used when there is no carry out).
  logic [4:0] lzc;
  always_comb begin
    lzc = 5'd27;
    for (int i = 0; i <= 26; i++) begin
      if (sum[i]) lzc = 5'(26 - i);
    end
  end

  // Normalised significand (leading 1 at bit 26) and exponent offset by +32 to stay unsigned:
  // e_norm = E + 32 where E is the unbounded biased exponent before rounding.
  logic [26:0] norm;
  logic [9:0] e_norm;
  always_comb begin
    if (sum[27]) begin
      norm   = {sum[27:2], sum[1] | sum[0]};
      e_norm = {2'b00, e_big} + 10'd33;
    end else begin
      norm   = sum[26:0] << lzc;
      e_norm = {2'b00, e_big} + 10'd32 - {5'd0, lzc};
    end
  end

  logic round_up, carry;
  logic [22:0] frac_r;
  assign round_up = norm[2] & (norm[1] | norm[0] | norm[3]);
  assign {carry, frac_r} = {1'b0, norm[25:3]} + {23'd0, round_up};

  logic [9:0] e_out;  // e_norm + carry - 32 (only meaningful when e_norm >= 33)
  assign e_out = e_norm + {9'd0, carry} - 10'd32;

  always_comb begin
    if (a_nan || b_nan || (a_inf && b_inf && (sa != sb))) begin
      y = CanonicalNaN;
    end else if (a_inf) begin
      y = {sa, 8'hFF, 23'd0};
    end else if (b_inf) begin
      y = {sb, 8'hFF, 23'd0};
    end else if (a_zero && b_zero) begin
      y = {sa & sb, 31'd0};
    end else if (a_zero) begin
      y = b;
    end else if (b_zero) begin
      y = a;
    end else if (sum == 28'd0) begin
      y = 32'd0;  // exact cancellation is +0 under round-to-nearest
    end else if (e_norm <= 10'd32 || norm[26] == 1'b0) begin
      y = {s_big, 31'd0};  // subnormal (and exact): flushed
    end else if (e_out >= 10'd255) begin
      y = {s_big, 8'hFF, 23'd0};  // overflow
    end else begin
      y = {s_big, e_out[7:0], frac_r};
    end
  end
endmodule
